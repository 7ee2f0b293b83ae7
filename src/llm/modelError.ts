import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { TroupeError, describeError } from '../errors.js';
import { innermostMessageOf, networkCodeOf } from './networkCode.js';
import { setupHint, setupProblemOf } from './setupFailure.js';

/**
 * True when a model call ended because its caller gave up (the agent was terminated): such an
 * error stays what it is, an abort, and is never reported as the model's failure.
 */
function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || error instanceof APIUserAbortError || (error instanceof Error && error.name === 'AbortError');
}

/** What the provider said, in one line: its HTTP status, error type and message when it sent them, or the network's error code. */
export function describeModelFailure(error: unknown): string {
  if (error instanceof APIConnectionTimeoutError) return error.message;
  if (error instanceof APIConnectionError) {
    const code = networkCodeOf(error);
    const said = innermostMessageOf(error.cause);
    return `connection failed${code === undefined ? '' : `: ${code}`}${said === '' || said === code ? '' : ` (${said})`}`;
  }
  if (error instanceof APIError) {
    // The SDK types these generically; at run time they are a number or undefined, and its body.
    const { status, type } = error as { status: number | undefined; type: string | null | undefined };
    const message = (error.error as { message?: unknown } | undefined)?.message;
    const said = typeof message === 'string' ? message : error.message;
    const kind = [status === undefined ? undefined : `HTTP ${status}`, type].filter((part) => part !== undefined && part !== null).join(' ');
    return `${kind === '' ? '' : `${kind}: `}${said}`;
  }
  const said = describeError(error);
  const code = networkCodeOf(error);
  return code === undefined || said.includes(code) ? said : `${said} (${code})`;
}

/**
 * How the model layer reports a call it gives up on: `TroupeError('model_error')` naming the
 * model, its endpoint when it has one, what the provider said and, for a setup problem (see
 * `setupProblemOf`), what to check; the original error is its cause, so an agent's failed Task
 * carries `model_error` instead of `internal`. Coded errors and aborts are returned unchanged.
 */
export function toModelError(error: unknown, model: string, signal?: AbortSignal, endpoint?: string): unknown {
  if (error instanceof TroupeError || isAbort(error, signal)) return error;
  const problem = endpoint === undefined ? undefined : setupProblemOf(error);
  const hint = problem === undefined || endpoint === undefined ? '' : `; ${setupHint(problem, endpoint)}`;
  const at = endpoint === undefined ? '' : ` at ${endpoint}`;
  return new TroupeError('model_error', `model ${model}${at} failed: ${describeModelFailure(error)}${hint}`, {
    cause: error,
    context: { model, ...(endpoint === undefined ? {} : { endpoint }) },
  });
}

/** The provider's own error inside a model_error (what retry decisions look at), or `error` itself. */
export function providerErrorOf(error: unknown): unknown {
  return error instanceof TroupeError && error.code === 'model_error' && error.cause !== undefined ? error.cause : error;
}

/**
 * True when `error` (a model_error or a provider's error) says the model is set up wrong:
 * unreachable, key refused, not found, or a 200 that is no stream. The CLI exits 2 on these.
 */
export function isSetupFailure(error: unknown): boolean {
  return setupProblemOf(providerErrorOf(error)) !== undefined;
}

import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { TroupeError, describeError } from '../errors.js';

/**
 * True when a model call ended because its caller gave up (the agent was terminated): such an
 * error stays what it is, an abort, and is never reported as the model's failure.
 */
function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || error instanceof APIUserAbortError || (error instanceof Error && error.name === 'AbortError');
}

/** What the provider said, in one line: its HTTP status, error type and message when it sent them. */
function describeModelFailure(error: unknown): string {
  if (error instanceof APIError) {
    // The SDK types these generically; at run time they are a number or undefined, and its body.
    const { status, type } = error as { status: number | undefined; type: string | null | undefined };
    const message = (error.error as { message?: unknown } | undefined)?.message;
    const said = typeof message === 'string' ? message : error.message;
    const kind = [status === undefined ? undefined : `HTTP ${status}`, type].filter((part) => part !== undefined && part !== null).join(' ');
    const cause = error instanceof APIConnectionError && error.cause !== undefined ? ` (${describeError(error.cause)})` : '';
    return `${kind === '' ? '' : `${kind}: `}${said}${cause}`;
  }
  return describeError(error);
}

/**
 * How the model layer reports a call it gives up on: `TroupeError('model_error')` naming the
 * model and what the provider said, the original error as its cause, so an agent's failed Task
 * carries `model_error` instead of `internal`. Coded errors and aborts are returned unchanged.
 */
export function toModelError(error: unknown, model: string, signal?: AbortSignal): unknown {
  if (error instanceof TroupeError || isAbort(error, signal)) return error;
  return new TroupeError('model_error', `model ${model} failed: ${describeModelFailure(error)}`, { cause: error, context: { model } });
}

/** The provider's own error inside a model_error (what retry decisions look at), or `error` itself. */
export function providerErrorOf(error: unknown): unknown {
  return error instanceof TroupeError && error.code === 'model_error' && error.cause !== undefined ? error.cause : error;
}

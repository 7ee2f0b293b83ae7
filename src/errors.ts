/**
 * Every failure troupe reports carries a code from this list, so the CLI can map it to an
 * exit code and the HTTP server to a status without parsing messages.
 */
export const errorCodes = [
  'invalid_input',
  'unknown_agent',
  'agent_terminated',
  'not_parent',
  'user_to_user',
  'duplicate_request',
  'request_timeout',
  'intake_closed',
  'model_error',
  'tool_error',
  'repeat_guard',
  'aborted',
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface ErrorContext {
  readonly agentId?: string;
  readonly taskId?: string;
  readonly [key: string]: unknown;
}

/** Base class of every error troupe throws on purpose. */
export class TroupeError extends Error {
  override readonly name: string;
  readonly code: ErrorCode;
  readonly context: ErrorContext;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; context?: ErrorContext } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.context = options.context ?? {};
  }
}

/** Input from outside (CLI, HTTP, transport, a model's tool arguments) that failed its schema. */
export class ValidationError extends TroupeError {
  /** Dotted path of the first offending field, or '' when the whole value is wrong. */
  readonly field: string;

  constructor(field: string, message: string, options: { cause?: unknown; context?: ErrorContext } = {}) {
    super('invalid_input', field === '' ? message : `${field}: ${message}`, options);
    this.field = field;
  }
}

/** A request whose reply did not arrive in time. */
export class RequestTimeoutError extends TroupeError {
  constructor(taskId: string, timeoutMs: number) {
    super('request_timeout', `no reply to task ${taskId} within ${timeoutMs} ms`, { context: { taskId, timeoutMs } });
  }
}

/** Renders anything thrown as a one-line message, for logs and error Tasks. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** The code of a TroupeError, or 'internal' for anything else. */
export function errorCodeOf(error: unknown): ErrorCode {
  return error instanceof TroupeError ? error.code : 'internal';
}

import type { ErrorCode } from '../errors.js';

/** Exit codes of the CLI, one place for all of them. */
export const ExitCode = {
  ok: 0,
  /** The society answered, but with a failure. */
  taskFailed: 1,
  /** Bad command line or input. */
  usage: 2,
  /** No answer within --timeout. */
  timeout: 3,
  /** Anything else that went wrong. */
  internal: 4,
} as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input':
    case 'unknown_agent':
    case 'agent_terminated':
    case 'user_to_user':
    case 'not_parent':
      return ExitCode.usage;
    case 'request_timeout':
      return ExitCode.timeout;
    case 'duplicate_request':
    case 'intake_closed':
    case 'model_error':
    case 'tool_error':
    case 'repeat_guard':
    case 'aborted':
    case 'internal':
      return ExitCode.internal;
    default: {
      const never: never = code;
      return never;
    }
  }
}

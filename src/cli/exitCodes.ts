import { type ErrorCode, TroupeError } from '../errors.js';

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
  /** `troupe replay`: the replay asked or did something the recorded run did not. */
  replayDiverged: 5,
  /** `serve` stopped at once by a second SIGINT (128 + 2, the shell's convention). */
  sigint: 130,
  /** `serve` stopped at once by a second SIGTERM (128 + 15). */
  sigterm: 143,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code of a command that ended on a TroupeError with `code`: the one place they are mapped. */
export function exitCodeFor(code: ErrorCode): ExitCode {
  switch (code) {
    // What the user asked for, or how, was wrong: fix the command line, input or environment.
    case 'invalid_input':
    case 'user_to_user':
    case 'unknown_agent':
    case 'unknown_task':
    case 'unknown_artifact':
    case 'unknown_fact':
    case 'unknown_node':
    case 'unknown_approval':
    case 'conflict':
    case 'agent_terminated':
    case 'not_parent':
    case 'unauthorized':
    case 'origin_not_allowed':
    case 'route_not_found':
    case 'malformed_json':
    case 'body_too_large':
    case 'unsupported_media_type':
    case 'bad_request':
    case 'method_not_allowed':
    case 'url_too_long':
    case 'headers_too_large':
    case 'store_damaged': // A damaged store in the data dir: the environment must be fixed.
    case 'native_addon_missing': // lmdb's addon was never built: the installation must be fixed.
    case 'embedder_mismatch': // Memory made with another embedder than the one configured: fix the configuration.
    case 'transport_unavailable': // No NATS server at the address given: fix the address or start the server.
      return ExitCode.usage;
    case 'request_timeout':
      return ExitCode.timeout;
    case 'intake_closed':
    case 'duplicate_request':
    case 'aborted':
    case 'mailbox_full':
    case 'memory_behind':
    case 'store_behind':
    case 'client_timeout':
    case 'too_many_streams':
    case 'step_limit':
    case 'repeat_guard':
    case 'interceptor_stopped':
    case 'guardrail_tripped':
    case 'approval_rejected':
    case 'approval_limit':
    case 'tool_call_limit':
    case 'handoff_limit':
    case 'token_budget':
    case 'time_budget':
    case 'model_queue_full':
    case 'agent_unreachable':
    case 'memory_full':
    case 'agent_limit':
    case 'children_limit':
    case 'spawn_depth_limit':
    case 'model_error':
    case 'task_too_large':
    case 'artifact_limit':
    case 'transport_full':
    case 'unknown_tool':
    case 'tool_timeout':
    case 'tool_error':
    case 'no_route':
    case 'recording_limit':
    case 'internal':
      return ExitCode.internal;
    case 'replay_diverged':
      return ExitCode.replayDiverged;
    default: {
      const never: never = code;
      return never;
    }
  }
}

/** How a command ends on `error`: its code's exit code, or `internal` for an uncoded throw. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof TroupeError ? exitCodeFor(error.code) : ExitCode.internal;
}

import { z } from 'zod';

/**
 * Every code a failed Task, a tool's error result, an HTTP reply or a CLI exit can carry: the one
 * list. The Task schema, the HTTP status table and the exit-code table are all built or checked
 * against it, so a code added here must be placed in each (the compiler says where).
 */
export const errorCodes = [
  // Input from outside (CLI, HTTP, transport, a model's tool arguments) that broke a rule.
  'invalid_input',
  'user_to_user',
  // The society's rules: runtime, society and org store refusing an operation.
  'unknown_agent',
  'agent_terminated',
  'not_parent',
  // The society's limits on its size and shape: a spawn past them is refused.
  'agent_limit',
  'children_limit',
  'spawn_depth_limit',
  // Intake and request/reply on the bus.
  'intake_closed',
  'duplicate_request',
  'request_timeout',
  'aborted',
  // An agent refusing a Task or giving up on it (the agent's behaviour and its turn).
  'mailbox_full',
  'memory_behind',
  'step_limit',
  'repeat_guard',
  'tool_call_limit',
  // An interceptor (createRuntime({ interceptors })) stopped the turn's work, giving its reason.
  'interceptor_stopped',
  // A guardrail (createRuntime({ guardrails })) found what a turn took in or would let out against its rule.
  'guardrail_tripped',
  // Approvals: a person rejected a tool call (or let it expire); a decision on the wrong call, or a second one; no such approval; too many waiting.
  'approval_rejected',
  'conflict',
  'unknown_approval',
  'approval_limit',
  // A handoff refused: the Task was handed over too often, or back to an agent that had it.
  'handoff_limit',
  // A Task's turn ran past its budget of tokens or time.
  'token_budget',
  'time_budget',
  // The society's queue of model calls waiting for a slot was full.
  'model_queue_full',
  // Answers to the user held until the org store commits them reached their limit: new work waits.
  'store_behind',
  // The model layer gave up: retries spent, or an error no retry can fix.
  'model_error',
  // A tool call that could not run or did not finish (the result the model reads).
  'unknown_tool',
  'tool_timeout',
  'tool_error',
  // Work given by role or description that no role fits well enough (the router refused).
  'no_route',
  // Refusals only the HTTP layer makes: auth, routing, body parsing.
  'unauthorized',
  // A browser page of an origin the server does not allow called `/mcp` (DNS rebinding protection).
  'origin_not_allowed',
  'route_not_found',
  'unknown_task',
  'malformed_json',
  'body_too_large',
  'unsupported_media_type',
  'bad_request',
  'method_not_allowed',
  'url_too_long',
  'headers_too_large',
  // A client that sends its request too slowly, or holds more event streams than it may.
  'client_timeout',
  'too_many_streams',
  // An org store whose files are damaged (truncated, garbled): refused rather than set aside.
  'store_damaged',
  // A native addon troupe cannot run without (lmdb's) that is not installed: no prebuilt one, and its build did not run.
  'native_addon_missing',
  // An agent's long-term memory (L4): full (maxFacts), or opened with another embedder than its vectors were made with.
  // A graph memory (src/graph) at maxNodes or maxEdges is full too: memory_full.
  'memory_full',
  'embedder_mismatch',
  // An agent's L4 asked to forget a fact it does not hold.
  'unknown_fact',
  // A graph memory asked about a node it does not hold (a tool's argument, a view's node id).
  'unknown_node',
  // The artifact store: an id it does not hold (never stored, or evicted), and an artifact past one of its limits.
  'unknown_artifact',
  'artifact_limit',
  // A network transport (NATS): a Task too large for one message, a transport at its bounds, or no server to reach.
  'task_too_large',
  'transport_full',
  'transport_unavailable',
  // An agent hosted on another node whose node is unreachable (missed heartbeats, or did not answer its placement).
  'agent_unreachable',
  // A recorded run (createRuntime({ record })) whose recording reached record.maxBytes: its model and tool calls are refused.
  'recording_limit',
  // A replay (replayRuntime) that asked the model, or called a tool, as the recorded run did not, or published another Task log.
  'replay_diverged',
  // Anything else: a bug, or a store that failed under us.
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** The codes as a schema, for every wire format that carries one (a Task's error, an HTTP error body). */
export const ErrorCodeSchema = z.enum(errorCodes);

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

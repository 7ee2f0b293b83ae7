import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, TroupeError, ValidationError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { pathOf } from './requestPath.js';
import type { ErrorBody } from './schemas.js';

/**
 * A refusal decided by the HTTP layer itself (auth, routing, a task it cannot find): a
 * TroupeError like any other, its status read from `statusOf`, and the field it is about.
 */
export class HttpError extends TroupeError {
  readonly status: number;
  /** The request field at fault (`taskId`, `limit`), or null when it is the request as a whole. */
  readonly field: string | null;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = statusOf(code);
    this.field = options.field ?? null;
  }
}

/** The HTTP status of each error code: the one place they are mapped (a code without one does not compile). */
const httpStatus: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  user_to_user: 400,
  malformed_json: 400,
  bad_request: 400,
  unauthorized: 401,
  not_parent: 403,
  origin_not_allowed: 403,
  method_not_allowed: 405,
  client_timeout: 408,
  unknown_agent: 404,
  unknown_task: 404,
  unknown_artifact: 404,
  unknown_fact: 404,
  unknown_node: 404,
  unknown_approval: 404,
  route_not_found: 404,
  agent_terminated: 409,
  duplicate_request: 409,
  conflict: 409,
  body_too_large: 413,
  task_too_large: 413,
  artifact_limit: 413,
  url_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  // Back-pressure: the agent (or the society) is full, the client may try again later.
  mailbox_full: 429,
  memory_behind: 429,
  store_behind: 429,
  too_many_streams: 429,
  memory_full: 429,
  agent_limit: 429,
  children_limit: 429,
  spawn_depth_limit: 429,
  approval_limit: 429,
  model_error: 502,
  intake_closed: 503,
  model_queue_full: 503,
  transport_full: 503,
  transport_unavailable: 503,
  agent_unreachable: 503,
  request_timeout: 504,
  step_limit: 500,
  repeat_guard: 500,
  approval_rejected: 500,
  replay_diverged: 500,
  recording_limit: 500,
  interceptor_stopped: 500,
  guardrail_tripped: 500,
  tool_call_limit: 500,
  handoff_limit: 500,
  token_budget: 500,
  time_budget: 500,
  unknown_tool: 500,
  tool_timeout: 500,
  tool_error: 500,
  no_route: 500,
  aborted: 500,
  store_damaged: 500,
  native_addon_missing: 500,
  embedder_mismatch: 500,
  internal: 500,
};

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode): number {
  return httpStatus[code];
}

/** Fastify's own refusals (body parsing, content types) as our codes; others keep their 4xx status. */
function frameworkCode(error: FastifyError): ErrorCode {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body_too_large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported_media_type';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'malformed_json';
    default:
      // A body that JSON.parse refused, or one with a `__proto__` key, is a SyntaxError with a 400.
      return error.name === 'SyntaxError' ? 'malformed_json' : 'bad_request';
  }
}

function errorBody(code: ErrorCode, message: string, field: string | null): ErrorBody {
  return { error: { code, message, field } };
}

/** What a thrown value becomes on the wire: a status and a body without stack or internals. */
export function toResponse(error: unknown): { status: number; body: ErrorBody } {
  // The HTTP layer's own refusals and bad input are meant for the client: shown whole.
  if (error instanceof HttpError) return { status: error.status, body: errorBody(error.code, error.message, error.field) };
  if (error instanceof ValidationError)
    return { status: statusOf(error.code), body: errorBody(error.code, error.message, error.field === '' ? null : error.field) };
  if (error instanceof TroupeError) {
    const status = statusOf(error.code);
    // A server-side failure says what kind it was, never its details.
    const message = status >= 500 && status !== 503 ? 'the server failed to handle this request' : error.message;
    return { status, body: errorBody(error.code, message, null) };
  }
  const framework = error as Partial<FastifyError>;
  if (typeof framework.statusCode === 'number' && framework.statusCode >= 400 && framework.statusCode < 500) {
    const code = frameworkCode(framework as FastifyError);
    return { status: framework.statusCode, body: errorBody(code, describeError(error), null) };
  }
  return { status: 500, body: errorBody('internal', 'the server failed to handle this request', null) };
}

/** Seconds a client refused for a full mailbox or queue (429) waits before trying again, unless the error says. */
const busyRetryAfterSeconds = 1;
/** Seconds a client refused while the runtime shuts down (503) waits: long enough for a restart. */
const unavailableRetryAfterSeconds = 5;

/**
 * The `Retry-After` (seconds) of a refusal the client may simply repeat later: back-pressure
 * (429) and a runtime shutting down or overloaded (503); undefined for every other error.
 */
function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof TroupeError)) return undefined;
  const status = statusOf(error.code);
  if (status !== 429 && status !== 503) return undefined;
  const given = error.context['retryAfterSeconds'];
  if (typeof given === 'number' && Number.isInteger(given) && given > 0) return given;
  return status === 429 || error.code === 'model_queue_full' ? busyRetryAfterSeconds : unavailableRetryAfterSeconds;
}

/**
 * The level a 5xx is logged at: a failure (500, 502, 504) is an error; a 503 is a refusal the
 * server means, a warning when it is overloaded or cannot reach an agent's node, and only a debug
 * line while it shuts down (`intake_closed`: every client is told so, and the shutdown is logged).
 */
function logLevelOf(error: unknown, status: number): 'debug' | 'warn' | 'error' {
  if (status !== 503) return 'error';
  return error instanceof TroupeError && error.code === 'intake_closed' ? 'debug' : 'warn';
}

/** Fastify's error handler: every failure leaves as `{ error: { code, message, field } }`; 5xx are logged (see logLevelOf). */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const { status, body } = toResponse(error);
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    // The path only: a query may carry the token (?access_token= on the event stream).
    if (status >= 500) {
      const level = logLevelOf(error, status);
      logger[level](
        { method: request.method, url: pathOf(request.url), status, error: describeError(error) },
        level === 'error' ? 'request failed' : 'request refused',
      );
    }
    return reply.status(status).send(body);
  };
}

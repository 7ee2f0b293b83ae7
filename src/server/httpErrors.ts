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

/** The HTTP status of each error code: the one place they are mapped. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input':
    case 'user_to_user':
    case 'malformed_json':
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'not_parent':
      return 403;
    case 'method_not_allowed':
      return 405;
    case 'client_timeout':
      return 408;
    case 'unknown_agent':
    case 'unknown_task':
    case 'unknown_artifact':
    case 'unknown_fact':
    case 'unknown_node':
    case 'route_not_found':
      return 404;
    case 'agent_terminated':
    case 'duplicate_request':
      return 409;
    case 'body_too_large':
    case 'task_too_large':
    case 'artifact_limit':
      return 413;
    case 'url_too_long':
      return 414;
    case 'unsupported_media_type':
      return 415;
    case 'headers_too_large':
      return 431;
    // Back-pressure: the agent (or the society) is full, the client may try again later.
    case 'mailbox_full':
    case 'memory_behind':
    case 'store_behind':
    case 'too_many_streams':
    case 'memory_full':
    case 'agent_limit':
    case 'children_limit':
    case 'spawn_depth_limit':
      return 429;
    case 'model_error':
      return 502;
    case 'intake_closed':
    case 'model_queue_full':
    case 'transport_full':
    case 'transport_unavailable':
    case 'agent_unreachable':
      return 503;
    case 'request_timeout':
      return 504;
    case 'step_limit':
    case 'repeat_guard':
    case 'interceptor_stopped':
    case 'guardrail_tripped':
    case 'tool_call_limit':
    case 'handoff_limit':
    case 'token_budget':
    case 'time_budget':
    case 'unknown_tool':
    case 'tool_timeout':
    case 'tool_error':
    case 'no_route':
    case 'aborted':
    case 'store_damaged':
    case 'native_addon_missing':
    case 'embedder_mismatch':
    case 'recording_limit':
    case 'replay_diverged':
    case 'internal':
      return 500;
    default: {
      const never: never = code;
      return never;
    }
  }
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

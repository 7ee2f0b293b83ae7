import { type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { ToolContext, ToolResult } from '../tools/index.js';
import { type TraceCarrier, carrierFields, carrierOf, contextOfCarrier } from '../traceContext.js';
import { GenAiOperations, TraceAttributes as A } from '../traceNames.js';

// A2A has no OpenTelemetry conventions of its own: a call to a remote agent is the GenAI
// conventions' remote `invoke_agent {agent}`, a CLIENT span on the caller's side and a SERVER span
// on the agent's, joined by the W3C `traceparent` the client sends with every request.

/** The client side of one delegation to a remote A2A agent. */
export interface RemoteCallTrace {
  /** The headers every request of the call carries (`traceparent`, `tracestate`), for the remote to join the trace. */
  readonly headers: Record<string, string>;
  /** The call is over: its result (an error result fails the span), and the remote task's id when it had one. */
  ended(result: ToolResult, remoteTaskId: string | undefined): void;
}

const untraced: RemoteCallTrace = { headers: {}, ended: () => undefined };

/**
 * The CLIENT span `invoke_agent {name}` of a delegation, under the tool call's span, when the
 * turn is traced (`context.tracer` and `context.trace` given); a no-op otherwise.
 */
export function remoteCallTrace(context: ToolContext, remote: { readonly name: string; readonly url: string }): RemoteCallTrace {
  const { tracer, trace: parent } = context;
  if (tracer === undefined || parent === undefined) return untraced;
  const where = new URL(remote.url);
  const port = where.port === '' ? (where.protocol === 'https:' ? 443 : 80) : Number(where.port);
  const span = tracer.startSpan(
    `${GenAiOperations.invokeAgent} ${remote.name}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [A.operationName]: GenAiOperations.invokeAgent,
        [A.agentName]: remote.name,
        [A.conversationId]: context.task.sessionId,
        [A.serverAddress]: where.hostname,
        [A.serverPort]: port,
        [A.taskId]: context.task.id,
      },
    },
    contextOfCarrier({ ...parent }),
  );
  return {
    headers: headersOf(carrierOf(span.spanContext())),
    ended: (result, remoteTaskId) => {
      if (remoteTaskId !== undefined) span.setAttribute(A.a2aTaskId, remoteTaskId);
      if (result.isError === true) {
        const code = result.metadata?.['code'];
        span.setAttribute(A.errorType, typeof code === 'string' && code !== '' ? code : 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

function headersOf(carrier: TraceCarrier | undefined): Record<string, string> {
  return { ...carrierFields(carrier) };
}

/** The server side of one A2A request that gives the society work. */
export interface ServedCallTrace {
  /** The trace context the work joins (the SERVER span's), for `rt.submit`. */
  readonly carrier: TraceCarrier | undefined;
  /** The request is answered (its stream ended); `error`: the JSON-RPC error it was answered with. */
  ended(error: { readonly code: number; readonly message: string } | undefined): void;
}

/**
 * The SERVER span `invoke_agent {agent}` of an A2A request that sends a message, continuing the
 * caller's trace from its `traceparent` header (a new trace without one, or with a bad one).
 */
function servedCallTrace(tracer: Tracer, agent: string, method: string, headers: Readonly<Record<string, unknown>>): ServedCallTrace {
  const parent = contextOfCarrier({ traceparent: headers['traceparent'], tracestate: headers['tracestate'] });
  const span: Span = tracer.startSpan(
    `${GenAiOperations.invokeAgent} ${agent}`,
    {
      kind: SpanKind.SERVER,
      attributes: { [A.operationName]: GenAiOperations.invokeAgent, [A.agentName]: agent, [A.rpcSystem]: 'jsonrpc', [A.rpcMethod]: method },
    },
    parent,
  );
  return {
    carrier: carrierOf(span.spanContext()),
    ended: (error) => {
      if (error !== undefined) {
        span.setAttribute(A.errorType, String(error.code));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
      span.end();
    },
  };
}

/** JSON-RPC methods that give the society work (v1.0 names, and v0.3's): each gets a SERVER span. */
const sendMethods: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/**
 * The trace context of each A2A request being handled that sends a message, by the message's id:
 * how the executor, which the SDK calls with the message but not the request's headers, learns
 * the span the work joins. An entry lives as long as its request.
 */
export class RequestTraces {
  readonly #carriers = new Map<string, TraceCarrier>();
  readonly #tracer: Tracer;
  readonly #agent: string;

  constructor(tracer: Tracer, agent: string) {
    this.#tracer = tracer;
    this.#agent = agent;
  }

  /** The trace context the work of message `messageId` joins, while its request is handled. */
  of(messageId: string): TraceCarrier | undefined {
    return this.#carriers.get(messageId);
  }

  /**
   * Starts the SERVER span of `body` when it sends a message (undefined otherwise), its trace
   * context kept for the message until the returned function is called with how it was answered.
   */
  start(body: unknown, headers: Readonly<Record<string, unknown>>): ServedCallTrace['ended'] | undefined {
    const request = body as { method?: unknown; params?: { message?: { messageId?: unknown } } } | null;
    const method = request?.method;
    if (typeof method !== 'string' || !sendMethods.has(method)) return undefined;
    const served = servedCallTrace(this.#tracer, this.#agent, method, headers);
    const messageId = request?.params?.message?.messageId;
    const kept = typeof messageId === 'string' && served.carrier !== undefined && !this.#carriers.has(messageId);
    if (kept) this.#carriers.set(messageId, served.carrier);
    return (error) => {
      if (kept) this.#carriers.delete(messageId);
      served.ended(error);
    };
  }
}

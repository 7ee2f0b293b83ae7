import { type Attributes, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../../task/index.js';
import { type TraceCarrier, carrierFields, carrierOf, contextOfCarrier } from '../../traceContext.js';
import { GenAiOperations, TraceAttributes as A, mcpToolsCall } from '../../traceNames.js';

/** Where an MCP server is reached, as the conventions' network attributes name it: a child process's pipes, or HTTP over TCP. */
export type McpPeer = { readonly transport: 'pipe' } | { readonly transport: 'tcp'; readonly address: string; readonly port: number };

/** One traced `tools/call` request: the `_meta` it carries, and how it ended. */
export interface McpCallSpan {
  /** The W3C trace context of the call's span, for the request's `params._meta` (the MCP conventions' propagation). */
  readonly meta: { traceparent?: string; tracestate?: string };
  /** The server answered; `isError` results are the call's failure (`tool_error`), as the conventions say. */
  answered(isError: boolean): void;
  /** The request failed: a JSON-RPC error (its code is `error.type`), a timeout, or the transport. */
  failed(error: unknown): void;
}

const defaultPorts: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** The peer of an HTTP server's URL. */
export function httpPeer(url: string): McpPeer {
  const parsed = new URL(url);
  return { transport: 'tcp', address: parsed.hostname, port: parsed.port === '' ? (defaultPorts[parsed.protocol] ?? 80) : Number(parsed.port) };
}

/**
 * The client spans of one MCP server's tool calls (`tools/call {tool}`, kind client, after the
 * MCP semantic conventions): each covers the request alone, from its sending to the server's
 * answer, as a child of the tool call's `execute_tool` span, and its context goes to the server in
 * `params._meta`. The JSON-RPC id is learnt as the request leaves (`sent`), since the SDK assigns it.
 */
export class McpCallTracer {
  readonly #tracer: Tracer;
  readonly #server: string;
  readonly #peer: McpPeer;
  readonly #redactor: Redactor;
  /** Calls sent and not answered yet, by their traceparent, for `sent` to find. */
  readonly #waiting = new Map<string, Span>();
  /** What the server agreed to speak (`initialize`), and its session (Streamable HTTP), as the connection learns them. */
  session: { protocolVersion?: string; sessionId?: () => string | undefined } = {};

  constructor(tracer: Tracer, server: string, peer: McpPeer, redactor: Redactor) {
    this.#tracer = tracer;
    this.#server = server;
    this.#peer = peer;
    this.#redactor = redactor;
  }

  /** The span of a call of `tool` about to be sent; undefined when the tool call is not traced (no parent). */
  start(tool: string, parent: TraceCarrier | undefined): McpCallSpan | undefined {
    if (parent === undefined) return undefined;
    const sessionId = this.session.sessionId?.();
    const attributes: Attributes = {
      [A.mcpMethodName]: mcpToolsCall,
      [A.operationName]: GenAiOperations.executeTool,
      [A.toolName]: tool,
      [A.mcpServer]: this.#server,
      [A.networkTransport]: this.#peer.transport,
      ...(this.#peer.transport === 'tcp' ? { [A.networkProtocolName]: 'http', [A.serverAddress]: this.#peer.address, [A.serverPort]: this.#peer.port } : {}),
      ...(this.session.protocolVersion === undefined ? {} : { [A.mcpProtocolVersion]: this.session.protocolVersion }),
      ...(sessionId === undefined ? {} : { [A.mcpSessionId]: sessionId }),
    };
    const span = this.#tracer.startSpan(`${mcpToolsCall} ${tool}`, { kind: SpanKind.CLIENT, attributes }, contextOfCarrier(carrierFields(parent)));
    const meta = carrierFields(carrierOf(span.spanContext()));
    const key = meta.traceparent;
    if (key !== undefined) this.#waiting.set(key, span);
    const end = (): void => {
      if (key !== undefined) this.#waiting.delete(key);
      span.end();
    };
    return {
      meta,
      answered: (isError) => {
        if (isError) span.setAttribute(A.errorType, 'tool_error').setStatus({ code: SpanStatusCode.ERROR });
        end();
      },
      failed: (error) => {
        const code = error instanceof McpError ? String(error.code) : undefined;
        span.setAttributes({
          [A.errorType]: code ?? (error instanceof Error ? error.name : '_OTHER'),
          ...(code === undefined ? {} : { [A.rpcStatusCode]: code }),
        });
        span.setStatus({ code: SpanStatusCode.ERROR, message: this.#redactor.text(error instanceof Error ? error.message : String(error)) });
        end();
      },
    };
  }

  /** A message on its way to the server: a traced request gets its JSON-RPC id (`jsonrpc.request.id`). */
  sent(message: JSONRPCMessage): void {
    if (this.#waiting.size === 0 || !('method' in message) || !('id' in message)) return;
    const meta = (message.params as { _meta?: { traceparent?: unknown } } | undefined)?._meta;
    const span = typeof meta?.traceparent === 'string' ? this.#waiting.get(meta.traceparent) : undefined;
    span?.setAttribute(A.jsonrpcRequestId, String(message.id));
  }
}

import { type Span, SpanKind, SpanStatusCode, type Tracer, context, trace } from '@opentelemetry/api';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { contextOfCarrier } from '../../traceContext.js';
import { GenAiOperations, TraceAttributes as A, mcpToolsCall } from '../../traceNames.js';

/** What the SDK tells a tool's handler of the request, the parts its span reads. */
export interface McpRequestFacts {
  readonly requestId: string | number;
  readonly sessionId?: string | undefined;
  /** The request's `params._meta`: where a traced client puts its `traceparent` and `tracestate`. */
  readonly _meta?: Readonly<Record<string, unknown>> | undefined;
}

/** One tool call served, as its SERVER span (`tools/call {tool}`) sees it. */
export interface McpServerSpan {
  /** Runs the handler with the span active: a requirement it submits joins the caller's trace (with a context manager registered). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  ended(result: CallToolResult): void;
}

/**
 * The MCP conventions' server span of a `tools/call` troupe's MCP server answers, continuing the
 * caller's trace from the request's `params._meta` (a new trace when it carries none, or a
 * malformed one). `transport`: `tcp` for `POST /mcp`, `pipe` for `troupe mcp`.
 */
export function mcpServerSpan(tracer: Tracer, tool: string, request: McpRequestFacts, transport: 'tcp' | 'pipe'): McpServerSpan {
  const parent = contextOfCarrier(request._meta ?? {});
  const span: Span = tracer.startSpan(
    `${mcpToolsCall} ${tool}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [A.mcpMethodName]: mcpToolsCall,
        [A.operationName]: GenAiOperations.executeTool,
        [A.toolName]: tool,
        [A.jsonrpcRequestId]: String(request.requestId),
        [A.networkTransport]: transport,
        ...(transport === 'tcp' ? { [A.networkProtocolName]: 'http' } : {}),
        ...(request.sessionId === undefined ? {} : { [A.mcpSessionId]: request.sessionId }),
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return {
    run: (fn) => context.with(active, fn),
    ended: (result) => {
      // The conventions' rule for a result the tool flags as an error.
      if (result.isError === true) span.setAttribute(A.errorType, 'tool_error').setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

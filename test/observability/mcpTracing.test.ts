import { SpanKind, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { serverPerTest } from '../support/httpServerFixture.js';

// One trace across two societies: B's agent calls A's `submit_requirement` through A's `POST /mcp`
// (the official SDK's client in B, its server in A), both tracing to one in-memory exporter.

const token = 'mcp-tracing-token';
const serve = serverPerTest();

describe("MCP spans across a client and troupe's MCP server", () => {
  it("the client span's context reaches the server in params._meta: server span under client span, A's turn under the server span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    // Registered for this test only: the server hands the span to rt.submit through the active context.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const a = await serve({
        memory: true,
        model: new ScriptedModel([{ text: 'rain, softly' }]),
        runtime: { tracing: { tracerProvider: provider } },
        server: { token },
      });
      const b = await createRuntime({
        model: new ScriptedModel([{ toolCalls: [{ name: 'a__submit_requirement', arguments: { text: 'a haiku', waitSeconds: 20 } }] }, { text: 'done' }]),
        mcpServers: { a: { url: `${a.url}/mcp`, headers: { authorization: `Bearer ${token}` }, requireApproval: false } },
        logger: new MemoryLogger(),
        tracing: { tracerProvider: provider },
      });
      try {
        expect((await b.waitForAnswer(await b.submit('ask a'), { timeoutMs: 20_000 })).status).toBe('completed');
      } finally {
        await b.shutdown();
      }
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      const find = (name: string, kind: SpanKind): ReadableSpan => {
        const found = spans.filter((span) => span.name === name && span.kind === kind);
        expect(found, name).toHaveLength(1);
        return found[0] as ReadableSpan;
      };
      const tool = find('execute_tool a__submit_requirement', SpanKind.INTERNAL);
      const client = find('tools/call submit_requirement', SpanKind.CLIENT);
      const server = find('tools/call submit_requirement', SpanKind.SERVER);
      const port = Number(new URL(a.url).port);
      expect(client.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': port,
      });
      expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'submit_requirement', 'network.transport': 'tcp' });
      // The JSON-RPC id both sides saw is the same request's.
      expect(server.attributes['jsonrpc.request.id']).toBe(client.attributes['jsonrpc.request.id']);
      expect(client.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
      expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
      // Two `invoke_agent root`: B's, and A's, which hangs under the server span.
      const turns = spans.filter((span) => span.name === 'invoke_agent root').map((span) => span.parentSpanContext?.spanId);
      expect(turns).toContain(server.spanContext().spanId);
      expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    } finally {
      context.disable();
    }
  });
});

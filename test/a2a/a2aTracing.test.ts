import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { a2aRemoteRole } from '../../src/a2a/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { commandModel } from '../support/a2aSociety.js';
import { serve } from '../support/httpServerFixture.js';

describe('A2A spans (the GenAI remote invoke_agent, CLIENT and SERVER)', () => {
  it('a delegation over A2A is a client span whose trace the server span and the remote turn join', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const tracing = { tracerProvider: provider };
    const remote = await serve({ memory: true, model: commandModel(), runtime: { tracing } });
    const local = await createRuntime({ model: commandModel(), tracing, remoteRoles: [a2aRemoteRole({ role: 'geo', url: remote.url })] });
    const answer = await local.waitForAnswer(await local.submit('run delegate_task {"role":"geo","task":"capital of France"}'), { timeoutMs: 30_000 });
    expect(JSON.stringify(answer.result)).toMatch(/capital of France/);
    await local.shutdown();
    await remote.close();
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const one = (name: string, kind: SpanKind): ReadableSpan => {
      const found = spans.filter((span) => span.name === name && span.kind === kind);
      expect(found, name).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    const tool = one('execute_tool delegate_task', SpanKind.INTERNAL);
    const client = one('invoke_agent geo', SpanKind.CLIENT);
    const server = one('invoke_agent troupe', SpanKind.SERVER);
    const remoteTurn = spans.find((span) => span.name === 'invoke_agent root' && span.parentSpanContext?.spanId === server.spanContext().spanId);
    expect(client.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(remoteTurn, 'the remote turn under the server span').toBeDefined();
    expect(new Set([tool, client, server, remoteTurn].map((span) => span?.spanContext().traceId)).size).toBe(1);
    expect(client.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'geo',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(remote.url).port),
      'troupe.a2a.task.id': expect.any(String) as unknown,
    });
    expect(server.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'troupe', 'rpc.method': 'SendStreamingMessage' });
  });
});

import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAIModel } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, type OpenAICompatibleServer, ScriptedModel, sequentialIds, startOpenAICompatibleServer } from '../../src/testing.js';
import { defineTool } from '../../src/tools/index.js';
import { stdioFixture } from '../support/mcpFixture.js';

// The spans a runtime makes, seen by the SDK's in-memory exporter through a provider given to
// the runtime (nothing global is registered: test files share their worker's globals).

/** A provider and the spans it has finished (the simple processor exports each span asynchronously: flushed first). */
function tracer(): { provider: TracerProvider; finished: () => Promise<ReadableSpan[]> } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { provider, finished: () => provider.forceFlush().then(() => exporter.getFinishedSpans()) };
}

const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
/** Everything a span lets out: its attributes, events and status, as text. */
const exported = (spans: readonly ReadableSpan[]): string => JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events, span.status]));

const secret = 'pa55-w0rd-never-leaves';

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(() => server.close());

describe('OpenTelemetry spans of a society (GenAI semantic conventions)', () => {
  it('a delegated turn is a child of the delegating tool call: names, kinds, parents and required attributes', async () => {
    const { finished, provider } = tracer();
    // The offline model's playbook: root creates a role, spawns a poet, delegates to it, lets it go, answers.
    const rt = await createRuntime({ logger: new MemoryLogger(), ids: sequentialIds(), tracing: { tracerProvider: provider } });
    const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    await rt.shutdown();
    const spans = await finished();

    const root = one(spans, 'invoke_agent root');
    const poet = one(spans, 'invoke_agent poet');
    const delegation = one(spans, 'execute_tool delegate_task');
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'offline-scripted',
      'gen_ai.agent.id': 'root',
      'gen_ai.agent.name': 'root',
      'gen_ai.conversation.id': answer.sessionId,
      'troupe.task.id': answer.id,
    });
    expect(delegation).toMatchObject({ kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'delegate_task' } });
    expect(delegation.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    expect(parentOf(delegation)).toBe(root.spanContext().spanId);
    // The poet's turn, run by another agent from a Task on the bus, hangs under the call that sent it.
    expect(parentOf(poet)).toBe(delegation.spanContext().spanId);
    expect(poet.attributes).toMatchObject({ 'gen_ai.agent.name': 'poet', 'gen_ai.conversation.id': answer.sessionId });
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([root.spanContext().traceId]));

    const chats = named(spans, 'chat offline-scripted');
    expect(chats.length).toBeGreaterThanOrEqual(3);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'offline-scripted',
        'gen_ai.request.model': 'offline-scripted',
      });
      expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual([expect.stringMatching(/^(stop|tool_calls)$/)]);
      expect([root.spanContext().spanId, poet.spanContext().spanId]).toContain(parentOf(chat));
    }
    expect(named(spans, 'execute_tool spawn_agent').map(parentOf)).toEqual([root.spanContext().spanId]);
    // No content unless asked for.
    expect(exported(spans)).not.toMatch(/gen_ai\.(input|output)\.messages|gen_ai\.tool\.call\.(arguments|result)|haiku/);
  });

  it('over HTTP: token usage, the response model and finish reasons; a failed call names its error.type on the call and the turn', async () => {
    const { finished, provider } = tracer();
    const model = new OpenAIModel({ baseURL: server.baseURL, apiKey: 'test', model: 'gpt-test' });
    server.script({ text: 'Hello there.' }, { status: 400, message: 'bad request' });
    const rt = await createRuntime({ model, retry: false, logger: new MemoryLogger(), tracing: { tracerProvider: provider } });
    expect((await rt.waitForAnswer(await rt.submit('hi'), { timeoutMs: 10_000 })).status).toBe('completed');
    expect((await rt.waitForAnswer(await rt.submit('again', { sessionId: 'other' }), { timeoutMs: 10_000 })).status).toBe('failed');
    await rt.shutdown();
    const spans = await finished();
    const [good, bad] = named(spans, 'chat gpt-test');
    expect(good?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': expect.any(Number) as number,
      'gen_ai.usage.output_tokens': expect.any(Number) as number,
      'gen_ai.response.time_to_first_chunk': expect.any(Number) as number,
    });
    expect(good?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(bad?.attributes['error.type']).toBe('model_error');
    expect(bad?.status.code).toBe(SpanStatusCode.ERROR);
    const turns = named(spans, 'invoke_agent root');
    expect(turns.map((turn) => turn.attributes['error.type'])).toEqual([undefined, 'model_error']);
  });

  it('records content only when asked, always redacted: secrets reach no attribute, event or status', async () => {
    const vault = defineTool({
      name: 'vault',
      description: 'Reads the vault.',
      parameters: z.object({ key: z.string() }),
      execute: ({ key }) => Promise.resolve({ content: `the vault says ${key} and ${secret}` }),
    });
    const run = async (content: boolean): Promise<ReadableSpan[]> => {
      const { finished, provider } = tracer();
      const model = new ScriptedModel([{ toolCalls: [{ name: 'vault', arguments: { key: secret } }] }, { text: `The password is ${secret}.` }]);
      const rt = await createRuntime({ model, tools: [vault], secrets: [secret], logger: new MemoryLogger(), tracing: { tracerProvider: provider, content } });
      await rt.waitForAnswer(await rt.submit(`open the vault with ${secret}`), { timeoutMs: 10_000 });
      await rt.shutdown();
      return finished();
    };
    const without = await run(false);
    expect(exported(without)).not.toContain('vault says');
    expect(exported(without)).not.toContain(secret);

    const withContent = await run(true);
    expect(exported(withContent)).not.toContain(secret);
    const [first, second] = named(withContent, 'chat scripted');
    expect(JSON.parse(String(first?.attributes['gen_ai.input.messages']))).toContainEqual({
      role: 'user',
      parts: [{ type: 'text', content: expect.stringContaining('open the vault with [REDACTED]') as string }],
    });
    expect(JSON.parse(String(second?.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'The password is [REDACTED].' }], finish_reason: 'stop' },
    ]);
    expect(one(withContent, 'execute_tool vault').attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"key":"[REDACTED]"}',
      'gen_ai.tool.call.result': 'the vault says [REDACTED] and [REDACTED]',
    });
  });

  it("an MCP server's tool call: the client span of its request under execute_tool; a call refused as a repeat has a span, failed", async () => {
    const { finished, provider } = tracer();
    // The same call twice in one reply with maxRepeatedToolCalls 2: the second is refused, never sent.
    const add = { name: 'calc__add', arguments: { a: 1, b: 2 } };
    const model = new ScriptedModel([{ toolCalls: [add, add] }, { text: 'three' }]);
    const rt = await createRuntime({
      model,
      mcpServers: { calc: stdioFixture('stdioServer') },
      maxRepeatedToolCalls: 2,
      logger: new MemoryLogger(),
      tracing: { tracerProvider: provider },
    });
    expect((await rt.waitForAnswer(await rt.submit('add 1 and 2'), { timeoutMs: 20_000 })).status).toBe('completed');
    await rt.shutdown();
    const spans = await finished();
    const [ran, refused] = named(spans, 'execute_tool calc__add').sort(
      (x, y) => Number(x.attributes['error.type'] !== undefined) - Number(y.attributes['error.type'] !== undefined),
    );
    const mcp = one(spans, 'tools/call add');
    expect(mcp).toMatchObject({
      kind: SpanKind.CLIENT,
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add', 'troupe.mcp.server': 'calc', 'network.transport': 'pipe' },
    });
    expect(mcp.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(mcp.attributes['mcp.protocol.version']).toEqual(expect.any(String));
    expect(parentOf(mcp)).toBe(ran?.spanContext().spanId);
    expect(mcp.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(refused?.attributes['error.type']).toBe('repeat_guard');
    expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("with a context manager: a run submitted inside the caller's span joins its trace, and a tool runs with its call's span active", async () => {
    // Registered for this test only, and taken away after it: test files share their worker's globals.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const { finished, provider } = tracer();
      let activeInTool: string | undefined;
      const probe = defineTool({
        name: 'probe',
        description: 'Notes the active span.',
        parameters: z.object({}),
        execute: () => {
          activeInTool = trace.getActiveSpan()?.spanContext().spanId;
          return Promise.resolve({ content: 'noted' });
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: 'probe', arguments: {} }] }, { text: 'done' }]);
      const rt = await createRuntime({ model, tools: [probe], logger: new MemoryLogger(), tracing: { tracerProvider: provider } });
      const request = provider.getTracer('the-app').startSpan('handle request');
      const taskId = await context.with(trace.setSpan(context.active(), request), () => rt.submit('probe it'));
      expect((await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).status).toBe('completed');
      request.end();
      await rt.shutdown();
      const spans = await finished();
      expect(parentOf(one(spans, 'invoke_agent root'))).toBe(request.spanContext().spanId);
      expect(activeInTool).toBe(one(spans, 'execute_tool probe').spanContext().spanId);
    } finally {
      context.disable();
    }
  });

  it('refuses a tracing option that is not one, naming it', async () => {
    await expect(createRuntime({ tracing: { tracerProvider: {} as never } })).rejects.toThrow(/tracing\.tracerProvider/);
    await expect(createRuntime({ tracing: { maxContentLength: 10 } })).rejects.toThrow(/tracing\.maxContentLength/);
  });
});

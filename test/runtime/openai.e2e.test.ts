import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Actions } from '../../src/task/index.js';
import { MemoryLogger, type OpenAICompatibleServer, sequentialIds, startOpenAICompatibleServer } from '../../src/testing.js';
import { recordBus } from '../support/runtimeFixture.js';
import { delegationChain, scriptByRole } from '../support/scriptByRole.js';

// The whole runtime on the real `openai` package, talking HTTP to the local OpenAI-compatible server.
let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

async function runtimeOverHttp(options: { retry?: { baseDelayMs: number } | false } = {}) {
  const logger = new MemoryLogger();
  const model = new OpenAIModel({ apiKey: 'test-key', baseURL: server.baseURL, model: 'troupe-test' });
  const rt = await createRuntime({ model, logger, ids: sequentialIds(), ...(options.retry === undefined ? {} : { retry: options.retry }) });
  return { rt, logger };
}

describe('the runtime over the OpenAI protocol', () => {
  it('plays the offline flow through the SDK: create_role, spawn, delegate, terminate, answer', async () => {
    const { rt } = await runtimeOverHttp();
    const seen = recordBus(rt);
    const before = server.chatRequests.length;
    const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    expect(answer.result).toMatchObject({ text: expect.stringContaining('each drop a small syllable') as unknown });
    const actions = seen.filter((task) => task.action !== Actions.thinking && task.action !== Actions.toolCall).map((task) => `${task.action}:${task.status}`);
    expect(actions).toEqual(expect.arrayContaining(['agent.spawned:completed', 'agent.terminated:completed']));
    // root: 5 calls (create_role, spawn, delegate, terminate, answer); the poet: 1.
    expect(server.chatRequests.length - before).toBe(6);
    const sentTools = server.chatRequests.at(-1)?.tools.map((tool) => tool.name) ?? [];
    expect(sentTools).toEqual(
      expect.arrayContaining(['create_role', 'spawn_agent', 'delegate_task', 'send_message', 'terminate_agent', 'compress_context', 'create_plan']),
    );
    const usage = rt.agent('root')?.usage;
    expect(usage?.calls).toBe(5);
    expect(usage?.promptTokens).toBeGreaterThan(0);
    expect(usage?.completionTokens).toBeGreaterThan(0);
    expect(rt.usage().calls).toBe(6);
    await rt.shutdown();
  });

  it('runs the delegation chain root → manager → worker and back through the SDK', async () => {
    const script = scriptByRole(delegationChain());
    server.script(...Array.from({ length: 11 }, () => script.reply));
    const { rt } = await runtimeOverHttp();
    const answer = await rt.waitForAnswer(await rt.submit('what is the number?'), { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'The number is 42.' }, metadata: { importance: 0.9 } });
    expect(script.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
    expect(
      rt
        .agents()
        .filter((agent) => agent.status === 'terminated')
        .map((agent) => agent.roleName)
        .sort(),
    ).toEqual(['manager', 'worker']);
    await rt.shutdown();
  });

  it('retries a 429 and a 500 on its own schedule, then answers', async () => {
    server.script({ status: 429, retryAfter: 0 }, { status: 500, message: 'flaky' }, { text: 'made it' });
    const { rt, logger } = await runtimeOverHttp({ retry: { baseDelayMs: 5 } });
    await rt.createRole({ name: 'solo', prompt: 'answer' });
    const solo = await rt.spawn({ role: 'solo' });
    const answer = await rt.waitForAnswer(await rt.send(solo, 'hello'), { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'made it' } });
    const retries = logger.entries.filter((entry) => entry.message === 'model call failed; retrying');
    expect(retries.map((entry) => [entry.fields['attempt'], entry.fields['status']])).toEqual([
      [1, 429],
      [2, 500],
    ]);
    await rt.shutdown();
  });

  it('shows the model malformed tool-call JSON as an error it can recover from', async () => {
    server.script({ toolCalls: [{ name: 'send_message', arguments: '{"to": "user", "text": ' }] }, { text: 'sorry, fixed' });
    const { rt } = await runtimeOverHttp();
    await rt.createRole({ name: 'clumsy', prompt: 'answer' });
    const clumsy = await rt.spawn({ role: 'clumsy' });
    const before = server.chatRequests.length;
    const answer = await rt.waitForAnswer(await rt.send(clumsy, 'go'), { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'sorry, fixed' } });
    const second = server.chatRequests[before + 1];
    expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('not valid JSON') as unknown });
    await rt.shutdown();
  });

  it("answers model_error, with the provider's status, when the model fails (retry off: at once)", async () => {
    server.script({ status: 500, message: 'the GPU caught fire' });
    const { rt } = await runtimeOverHttp({ retry: false });
    const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
    expect(answer).toMatchObject({
      status: 'failed',
      error: { code: 'model_error', message: `model openai:troupe-test at ${server.baseURL} failed: HTTP 500 server_error: the GPU caught fire` },
    });
    await rt.shutdown();
  });
});

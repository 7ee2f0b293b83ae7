import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRequest, type ModelClient, OpenAIModel, ScriptedModel } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Actions } from '../../src/task/index.js';
import { MemoryLogger, type OpenAICompatibleServer, sequentialIds, startOpenAICompatibleServer } from '../../src/testing.js';
import { recordBus } from '../support/runtimeFixture.js';
import { lastToolResult, scriptByRole } from '../support/scriptByRole.js';

/** Every meta-tool once, in one turn of the root agent, with a helper child answering twice. */
function everyMetaTool() {
  let helper = '';
  return scriptByRole({
    root: [
      { toolCalls: [{ name: 'create_role', arguments: { name: 'helper', prompt: 'You help.' } }] },
      { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'helper', task: 'say hi' } }] },
      (request: ChatRequest) => {
        helper = String(lastToolResult(request)['agentId']);
        return { toolCalls: [{ name: 'send_message', arguments: { to: 'user', text: 'working on it' } }] };
      },
      { toolCalls: [{ name: 'create_plan', arguments: { goal: 'finish', steps: [{ title: 'ask the helper' }, { title: 'answer' }] } }] },
      { toolCalls: [{ name: 'remember', arguments: { text: 'The helper computes things.', scope: 'agent' } }] },
      { toolCalls: [{ name: 'search_memory', arguments: { query: 'who computes things?' } }] },
      () => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: helper, task: 'compute' } }] }),
      { toolCalls: [{ name: 'compress_context', arguments: { summary: 'the helper computed it', keepRecent: 2 } }] },
      () => ({ toolCalls: [{ name: 'terminate_agent', arguments: { agentId: helper } }] }),
      { text: 'all done' },
    ],
    helper: [{ text: 'hi' }, { text: 'computed' }],
  });
}

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

const models: Record<string, (reply: (request: ChatRequest) => { text?: string }) => { model: ModelClient; requests: () => readonly ChatRequest[] }> = {
  'the scripted model': (reply) => {
    const model = new ScriptedModel(Array.from({ length: 14 }, () => reply));
    return { model, requests: () => model.requests };
  },
  'the openai package over HTTP': (reply) => {
    const before = server.chatRequests.length;
    server.script(...Array.from({ length: 14 }, () => reply));
    return {
      model: new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'contract' }),
      requests: () => server.chatRequests.slice(before),
    };
  },
};

describe.each(Object.keys(models))('every meta-tool through a model tool call, with %s', (name) => {
  it('creates, spawns with a first task, messages, plans, remembers and searches, delegates, compresses, terminates and answers', async () => {
    const script = everyMetaTool();
    const { model, requests } = (
      models[name] ??
      (() => {
        throw new Error(name);
      })
    )(script.reply);
    const rt = await createRuntime({ model, logger: new MemoryLogger(), ids: sequentialIds() });
    const seen = recordBus(rt);
    const taskId = await rt.submit('do everything');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });

    expect(answer).toMatchObject({ status: 'completed', result: { text: 'all done' } });
    expect(script.remaining()).toEqual({ root: 0, helper: 0 });
    // No tool call failed: every tool result the root saw is free of errors.
    const rootRequests = requests().filter((request) => request.messages[0]?.content.includes('(role root)') === true);
    const results =
      rootRequests
        .at(-1)
        ?.messages.filter((message) => message.role === 'tool')
        .map((message) => message.content) ?? [];
    expect(results.length).toBeGreaterThan(0);
    for (const content of results) expect(content).not.toMatch(/"error":"/);
    // Before compress_context shortened the turn: the fact remembered, then found.
    const beforeCompress = rootRequests.at(-3)?.messages.filter((message) => message.role === 'tool') ?? [];
    expect(beforeCompress.map((message) => message.content).join(' ')).toContain('"facts":[{"id":"f0","text":"The helper computes things."');

    const helper = rt.agents().find((agent) => agent.roleName === 'helper');
    expect(helper).toMatchObject({ parentAgentId: 'root', status: 'terminated' });
    expect(rt.inbox().some((task) => task.from === 'root' && task.action === Actions.message && task.parameters['text'] === 'working on it')).toBe(true);
    const plan = seen.filter((task) => task.action === Actions.planStep);
    expect(plan.map((task) => [task.parentId, task.parameters['title']])).toEqual([
      [taskId, 'ask the helper'],
      [taskId, 'answer'],
    ]);
    const delegated = seen.find(
      (task) => task.from === helper?.id && task.status === 'completed' && task.result !== null && JSON.stringify(task.result).includes('computed'),
    );
    expect(delegated?.to).toBe('root');
    // After compress_context the root's next request holds the turn's prompt, then the summary in place of the steps it replaced.
    const afterCompress = rootRequests.at(-2)?.messages ?? [];
    const summaryAt = afterCompress.findIndex((message) => message.role === 'system' && message.content.includes('the helper computed it'));
    expect(summaryAt).toBeGreaterThan(0);
    expect(afterCompress[summaryAt - 1]?.content).toContain('do everything');
    expect(afterCompress.length).toBeLessThan(rootRequests.at(-3)?.messages.length ?? 0);
    await rt.shutdown();
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/index.js';
import type { ChatDelta, ChatRequest } from '../../src/llm/messages.js';
import type { ChatOptions } from '../../src/llm/modelClient.js';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore, sessionConversationKey } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskText } from '../../src/task/index.js';
import { ForwardingPort } from '../../src/runtime/nodes/forwardingPort.js';
import { serveOrgRequests } from '../../src/runtime/nodes/orgRequests.js';
import { internalsOf } from '../../src/runtime/internals.js';

// Issue 30, point 2: a turn resumed after a crash runs a spawn_agent call whose result was never
// stored again; it must get back the child that call spawned, not a second one, and running a
// terminate_agent again on a child its caller already terminated is no error.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-spawn-once-'));
  dirs.push(dir);
  return dir;
}

/** Drops the last stored message of root's conversation in `sessionId`: what a crash between a tool's effect and its result's write leaves. */
async function forgetLastResult(dir: string, sessionId: string, tool: string): Promise<void> {
  const store = await openOrgStore({ dir });
  try {
    const key = sessionConversationKey('root', sessionId);
    const steps = store.conversation(key);
    expect(steps.at(-1)).toMatchObject({ role: 'tool', name: tool });
    await store.clearConversation(key);
    await store.appendConversation(key, steps.slice(0, -1));
  } finally {
    await store.close();
  }
}

/** A scripted model that says when its `n`th call has begun (the turn's steps before it are then stored). */
class CountedModel extends ScriptedModel {
  readonly #waits: { n: number; resolve: () => void }[] = [];

  called(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waits.push({ n, resolve }));
  }

  override async *chat(request: ChatRequest, options?: ChatOptions): AsyncGenerator<ChatDelta> {
    const replies = super.chat(request, options);
    // The call is recorded as soon as the generator starts, before a hanging step never yields.
    const next = replies.next();
    for (const wait of this.#waits) if (this.requests.length >= wait.n) wait.resolve();
    const first = await next;
    if (first.done !== true) {
      yield first.value;
      yield* replies;
    }
  }
}

const hire = [
  { toolCalls: [{ name: 'create_role', arguments: { name: 'worker', prompt: 'Do the work.' } }] },
  { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'worker' } }] },
];

describe('meta-tools run again by a resumed turn', () => {
  it('a spawn_agent call whose result was lost gives back the child it spawned, not a second one', async () => {
    const dir = await dataDir();
    const logger = new MemoryLogger();
    const first = new CountedModel([...hire, { hang: true }]);
    const rt = await createRuntime({ dataDir: dir, model: first, logger });
    const taskId = await rt.submit('hire a worker');
    await first.called(3);
    const [child] = rt.agents().filter((agent) => agent.parentAgentId === 'root');
    await rt.shutdown({ drainTimeoutMs: 0 });
    await forgetLastResult(dir, taskId, 'spawn_agent');

    const second = new ScriptedModel([{ text: 'hired' }]);
    const again = await createRuntime({ dataDir: dir, model: second, logger });
    const answer = await again.waitForAnswer(taskId, { timeoutMs: 20_000 });
    expect([answer.status, taskText(answer)]).toEqual(['completed', 'hired']);
    const children = again.agents().filter((agent) => agent.parentAgentId === 'root');
    expect(children.map((agent) => [agent.id, agent.status])).toEqual([[child?.id, 'active']]);
    // The call's result, as the model saw it, names the same child.
    const result = second.requests[0]?.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', name: 'spawn_agent' });
    expect(JSON.parse(result?.role === 'tool' ? result.content : '{}')).toEqual({ agentId: child?.id, roleId: child?.roleId });
    await again.shutdown();
  });

  it('spawning again for the same call of the same Task gives the same child; another call or Task gets its own', async () => {
    const rt = await createRuntime({ model: new ScriptedModel([]), logger: new MemoryLogger() });
    const society = internalsOf(rt).society;
    await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
    const call = { taskId: 'task-1', toolCallId: 'call_1' };
    const a = await society.spawn({ role: 'worker', parent: 'root', call });
    const b = await society.spawn({ role: 'worker', parent: 'root', call });
    const c = await society.spawn({ role: 'worker', parent: 'root', call: { ...call, toolCallId: 'call_2' } });
    const d = await society.spawn({ role: 'worker', parent: 'root', call: { ...call, taskId: 'task-2' } });
    expect(b).toEqual(a);
    expect(new Set([a.agentId, c.agentId, d.agentId]).size).toBe(3);
    expect(rt.agents().filter((agent) => agent.parentAgentId === 'root')).toHaveLength(3);
    await rt.shutdown();
  });

  it('a terminate_agent call run again on a child its caller terminated answers as the first time', async () => {
    const dir = await dataDir();
    const logger = new MemoryLogger();
    const terminate = (request: { messages: readonly { role: string; content: string }[] }) => {
      const spawned = JSON.parse(request.messages.at(-1)?.content ?? '{}') as { agentId: string };
      return { toolCalls: [{ name: 'terminate_agent', arguments: { agentId: spawned.agentId, mode: 'abort' } }] };
    };
    const first = new CountedModel([...hire, terminate, { hang: true }]);
    const rt = await createRuntime({ dataDir: dir, model: first, logger });
    const taskId = await rt.submit('hire a worker, then let them go');
    await first.called(4);
    const [child] = rt.agents().filter((agent) => agent.parentAgentId === 'root');
    expect(child?.status).toBe('terminated');
    await rt.shutdown({ drainTimeoutMs: 0 });
    await forgetLastResult(dir, taskId, 'terminate_agent');

    const second = new ScriptedModel([{ text: 'done' }]);
    const again = await createRuntime({ dataDir: dir, model: second, logger });
    const answer = await again.waitForAnswer(taskId, { timeoutMs: 20_000 });
    expect([answer.status, taskText(answer)]).toEqual(['completed', 'done']);
    const result = second.requests[0]?.messages.at(-1);
    expect(result?.role === 'tool' ? JSON.parse(result.content) : undefined).toEqual({ ok: true, terminatedAgentId: child?.id, mode: 'abort' });
    await again.shutdown();
  });

  it('terminate by anyone but the parent still fails once the agent is terminated', async () => {
    const rt = await createRuntime({ model: new ScriptedModel([]), logger: new MemoryLogger() });
    await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
    const boss = await rt.spawn({ role: 'worker', parent: 'root' });
    const worker = await rt.spawn({ role: 'worker', parent: boss });
    await rt.terminate(worker, { by: boss, mode: 'abort' });
    await expect(rt.terminate(worker, { by: boss, mode: 'drain' })).resolves.toBeUndefined();
    await expect(rt.terminate(worker, { by: 'root' })).rejects.toMatchObject({ code: 'agent_terminated' });
    await rt.shutdown();
  });
});

describe('meta-tools of an agent on a node, run again by a resumed turn', () => {
  it('the owner recognises the spawn call a node forwards, and answers a terminate again with how it ended', async () => {
    const rt = await createRuntime({ model: new ScriptedModel([]), logger: new MemoryLogger() });
    const society = internalsOf(rt).society;
    await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
    // The owner's side and a node's port on one bus: the requests and answers are the Tasks a node and its owner exchange.
    const serving = serveOrgRequests(rt.bus, society, society.clock);
    const port = new ForwardingPort(society, 10_000);
    const call = { taskId: 'task-1', toolCallId: 'call_1' };
    const first = await port.spawn({ role: 'worker', parent: 'root', call });
    expect(await port.spawn({ role: 'worker', parent: 'root', call })).toEqual(first);
    expect(rt.agents().filter((agent) => agent.parentAgentId === 'root')).toHaveLength(1);
    expect(await port.terminate({ agentId: first.agentId, by: 'root', reason: 'done', mode: 'abort' })).toEqual({ mode: 'abort' });
    expect(await port.terminate({ agentId: first.agentId, by: 'root', reason: 'done', mode: 'drain' })).toEqual({ mode: 'abort' });
    serving.unsubscribe();
    await rt.shutdown();
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OfflineModel, ScriptedModel } from '../../src/llm/index.js';
import { openOrgStore, sessionConversationKey } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Actions, taskAsPrompt } from '../../src/task/index.js';
import { MemoryLogger } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';
import { workerLeftMidTurn } from '../support/leftMidTurn.js';
import { internalsOf } from '../../src/runtime/internals.js';

const dirs: string[] = [];
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-persist-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the runtime on an organisation store', () => {
  it('writes roles, agents, terminations, the message log and the inbox, and restores them on restart', async () => {
    const dir = await dataDir();
    const first = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger() });
    const taskId = await first.submit('write a haiku about rain');
    const answer = await first.waitForAnswer(taskId, { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    const poet = first.agents().find((agent) => agent.roleName === 'poet');
    const summary = await first.shutdown();
    expect(summary.drained).toBe(true);

    // What the store holds, read back directly.
    const store = await openOrgStore({ dir });
    expect(
      store
        .roles()
        .map((role) => role.name)
        .sort(),
    ).toEqual(['poet', 'root']);
    expect(store.agent('root')).toMatchObject({ status: 'active', parentAgentId: null });
    expect(store.agent(poet?.id ?? '')).toMatchObject({ status: 'terminated', parentAgentId: 'root' });
    expect(store.terminations()).toEqual([expect.objectContaining({ agentId: poet?.id, terminatedBy: 'root', reason: 'task done' })]);
    const log = store.messages(taskId);
    expect(log[0]).toMatchObject({ id: taskId, from: 'user', to: 'root', status: 'submitted' });
    expect(log.at(-1)).toMatchObject({ id: taskId, from: 'root', to: 'user', status: 'completed' });
    expect(log.some((task) => task.action === Actions.spawned)).toBe(true);
    expect(log.some((task) => task.action === Actions.thinking)).toBe(false);
    expect(store.inbox().map((task) => [task.id, task.status])).toEqual(first.inbox().map((task) => [task.id, task.status]));
    expect(store.quarantined()).toEqual([]);
    await store.close();

    // A new runtime on the same directory brings the organisation back.
    const model = new ScriptedModel([{ text: 'hello again' }]);
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    // The agents start in the background, once the organisation is known.
    expect(second.agent('root')).toMatchObject({ status: 'active', state: 'restoring' });
    await second.restored();
    expect(second.agent('root')).toMatchObject({ status: 'active', state: 'running.idle' });
    expect(second.agent(poet?.id ?? '')).toMatchObject({ status: 'terminated', state: 'terminated' });
    expect(internalsOf(second).society.terminations()).toHaveLength(1);
    expect(
      second
        .inbox()
        .filter((task) => task.id === taskId)
        .map((task) => task.status),
    ).toEqual(['working', 'completed']);
    await expect(second.createRole({ name: 'poet', prompt: 'again' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(second.send(poet?.id ?? '', 'are you there?')).rejects.toMatchObject({ code: 'agent_terminated' });
    const next = await second.submit('hello');
    expect((await second.waitForAnswer(next, { timeoutMs: 10_000 })).result).toEqual({ text: 'hello again' });
    await second.shutdown();

    // The log is readable by the CLI view, the new task next to the old one.
    const viewed = await runCli(['messages', next, '--data-dir', dir]);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(viewed.stdout).toMatch(/user → root\s+execute\s+hello/);
    expect(viewed.stdout).toMatch(/root → user\s+execute \[completed\]\s+hello again/);
  });

  it('refuses to restore a data dir whose root agent was terminated', async () => {
    const dir = await dataDir();
    const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel([]), logger: new MemoryLogger() });
    await rt.terminate('root', { by: 'user' });
    await rt.shutdown();
    await expect(createRuntime({ dataDir: dir, model: new ScriptedModel([]), logger: new MemoryLogger() })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('the message log on a data dir', () => {
  it('keeps at most messageLogLimit Tasks: the oldest sessions lose theirs first, the newest keep theirs', async () => {
    const dir = await dataDir();
    const model = new ScriptedModel(Array.from({ length: 120 }, () => ({ text: 'ok' })));
    const rt = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger(), messageLogLimit: 20 });
    const sessions: string[] = [];
    for (let i = 0; i < 120; i++) {
      sessions.push(await rt.submit(`question ${i}`));
      await rt.waitForAnswer(sessions.at(-1) ?? '', { timeoutMs: 10_000 });
    }
    await rt.shutdown();
    const store = await openOrgStore({ dir });
    const logged = sessions.map((session) => store.messages(session, {}).length);
    await store.close();
    // Every submit logs its Tasks (more than 2): 120 of them pass the first check, at 256 appends, and what is left is bounded.
    expect(logged[0]).toBe(0);
    expect(logged.at(-1)).toBeGreaterThan(0);
    expect(logged.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(20 + 256);
  });
});

describe('conversations across a restart', () => {
  it('an agent continues its conversation where it stopped; a terminated agent leaves none behind', async () => {
    const dir = await dataDir();
    const first = await createRuntime({ dataDir: dir, model: new ScriptedModel([{ text: 'first answer' }]), logger: new MemoryLogger() });
    await first.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await first.spawn({ role: 'worker' });
    const gone = await first.spawn({ role: 'worker' });
    const sessionId = await first.send(worker, 'first question');
    await first.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    const before =
      internalsOf(first)
        .society.agent(worker)
        ?.context(sessionId)
        .messages.map((message) => message.content) ?? [];
    expect(before.slice(1)).toEqual([expect.stringContaining('first question'), 'first answer']);
    await first.terminate(gone, { by: 'user' });
    await first.shutdown();

    const model = new ScriptedModel([{ text: 'second answer' }]);
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    await second.restored();
    expect(
      internalsOf(second)
        .society.agent(worker)
        ?.context(sessionId)
        .messages.map((message) => message.content),
    ).toEqual(before);
    await second.waitForAnswer(await second.send(worker, 'second question', { sessionId }), { timeoutMs: 10_000 });
    // The model sees the earlier exchange, then the new question.
    expect(model.requests[0]?.messages.map((message) => message.content)).toEqual([...before, expect.stringContaining('second question')]);
    await second.shutdown();

    const store = await openOrgStore({ dir });
    expect(store.conversation(sessionConversationKey(gone, sessionId))).toEqual([]);
    expect(
      store
        .conversation(sessionConversationKey(worker, sessionId))
        .map((step) => step.content)
        .at(-1),
    ).toBe('second answer');
    await store.close();
  });
});

describe('a shutdown on a data dir', () => {
  it('keeps the Tasks the drain did not finish for the restart, instead of cancelling them', async () => {
    const dir = await dataDir();
    const first = await createRuntime({ dataDir: dir, model: new ScriptedModel([{ hang: true }]), logger: new MemoryLogger() });
    await first.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await first.spawn({ role: 'worker' });
    const taskId = await first.send(worker, 'a slow question');
    const summary = await first.shutdown({ drainTimeoutMs: 50 });
    expect(summary).toMatchObject({ drained: false, pendingTasks: 1 });
    // Told it is being worked on, never that it was cancelled.
    expect(
      first
        .inbox()
        .filter((task) => task.id === taskId)
        .map((task) => task.status),
    ).toEqual(['working']);

    const model = new ScriptedModel([{ text: 'a slow answer' }]);
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    const answer = await second.waitForAnswer(taskId, { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'a slow answer' } });
    await second.shutdown();

    // The task's history shows the question and its answer, no cancellation and no termination in between.
    const store = await openOrgStore({ dir });
    const log = store.messages(taskId);
    expect(log.filter((task) => task.id === taskId).map((task) => task.status)).toEqual(['submitted', 'working', 'working', 'completed']);
    expect(
      store
        .messages(worker)
        .concat(log)
        .some((task) => task.action === Actions.terminated),
    ).toBe(false);
    expect(store.agent(worker)?.status).toBe('active');
    await store.close();
  });
});

describe('a restart after the answer was stored but not sent', () => {
  it('sends the stored answer without calling the model again', async () => {
    const dir = await dataDir();
    // The store as a crash would leave it: the turn's prompt and final answer kept, the Task still waiting.
    const { task } = await workerLeftMidTurn(dir, 'what is 6 × 7?', (worker, waiting) => ({
      key: sessionConversationKey(worker, waiting.sessionId),
      steps: [
        { role: 'user', content: taskAsPrompt(waiting) },
        { role: 'assistant', content: '42', toolCalls: [] },
      ],
    }));

    const model = new ScriptedModel([]);
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    const answer = await second.waitForAnswer(task.id, { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: '42' } });
    expect(model.requests).toHaveLength(0);
    await second.shutdown();
  });
});

describe('spawning on a data dir', () => {
  it('a child whose parent is terminated while its record is being written is refused and stays terminated', async () => {
    const dir = await dataDir();
    const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel([]), logger: new MemoryLogger() });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const parent = await rt.spawn({ role: 'worker' });
    // The child's record is on its way to disk when the parent goes.
    const spawning = internalsOf(rt).society.spawn({ role: 'worker', parent, id: 'late-child' });
    await rt.terminate(parent, { by: 'user' });
    await expect(spawning).rejects.toMatchObject({ code: 'agent_terminated' });
    expect(rt.agent('late-child')).toMatchObject({ status: 'terminated', state: 'terminated' });
    await rt.shutdown();

    const store = await openOrgStore({ dir });
    expect(store.agent('late-child')?.status).toBe('terminated');
    expect(store.terminations().find((termination) => termination.agentId === 'late-child')).toMatchObject({
      terminatedBy: parent,
      reason: 'parent terminated while spawning',
    });
    await store.close();
  });
});

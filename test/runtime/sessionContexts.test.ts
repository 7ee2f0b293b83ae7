import { describe, expect, it } from 'vitest';
import { openOrgStore, sessionConversationKey } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskAsPrompt } from '../../src/task/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { promptsIn } from '../support/heldCalls.js';
import { workerLeftMidTurn } from '../support/leftMidTurn.js';
import { answers, quietRuntime } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';

// Each session has its own context on an agent: what compress_context shortens, what is kept in
// memory (within sessionsInMemoryPerAgent) and read back from the store, and what a restart
// restores. A store from before sessions had contexts of their own does not crash the restart.

const dataDir = tempDirsAfterEach('troupe-sessions-');

describe('a context per session', () => {
  it("compress_context shortens only the context of the session calling it; the other session's stays whole", async () => {
    const { rt, model } = await quietRuntime({
      steps: [
        { text: 'a one' },
        { text: 'b one' },
        { toolCalls: [{ name: 'compress_context', arguments: { summary: 'A so far', keepRecent: 0 } }] },
        { text: 'a two' },
        { text: 'b two' },
      ],
    });
    const a = await rt.submit('a first');
    await rt.waitForAnswer(a, { timeoutMs: 5_000 });
    const b = await rt.submit('b first');
    await rt.waitForAnswer(b, { timeoutMs: 5_000 });
    await rt.waitForAnswer(await rt.submit('a second', { sessionId: a }), { timeoutMs: 5_000 });
    await rt.waitForAnswer(await rt.submit('b second', { sessionId: b }), { timeoutMs: 5_000 });
    // A's last call: A's earlier exchange from memory, then its turn compressed to the prompt, the
    // summary, the compress step and its result. B's holds all of B and nothing of A.
    const aLast = model.requests[3]?.messages ?? [];
    expect(promptsIn(model.requests[3])).toEqual(['a first', 'a second']);
    expect(aLast.slice(-3).map((message) => message.role)).toEqual(['system', 'assistant', 'tool']);
    expect(aLast.at(-3)).toMatchObject({ role: 'system', content: expect.stringContaining('A so far') as unknown });
    expect(aLast.map((message) => message.content).join('\n')).not.toContain('b ');
    const bLast = model.requests[4]?.messages.map((message) => message.content) ?? [];
    expect(promptsIn(model.requests[4])).toEqual(['b first', 'b second']);
    expect(bLast).toContain('b one');
    expect(bLast.join('\n')).not.toMatch(/A so far|a first|a one/);
    await rt.shutdown();
  });

  it('keeps at most sessionsInMemoryPerAgent contexts, in memory and in the store; one let go continues from memory on its next Task', async () => {
    const dir = await dataDir();
    const model = new ScriptedModel(answers(4, 'noted'));
    const rt = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger(), sessionsInMemoryPerAgent: 2 });
    const sessions: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      sessions.push(await rt.submit(text));
      await rt.waitForAnswer(sessions.at(-1) ?? '', { timeoutMs: 5_000 });
    }
    expect(internalsOf(rt).society.agent('root')?.sessionsInMemory).toBe(2);
    await rt.waitForAnswer(await rt.submit('one again', { sessionId: sessions[0] }), { timeoutMs: 5_000 });
    expect(promptsIn(model.requests[3])).toEqual(['one', 'one again']);
    expect(model.requests[3]?.messages.map((message) => message.content)).toContain('noted');
    expect(internalsOf(rt).society.agent('root')?.sessionsInMemory).toBe(2);
    await rt.shutdown();
    // Stored steps follow memory: the session let go last ('two') kept none, the two in memory their last turn.
    const store = await openOrgStore({ dir });
    const stored = sessions.map((session) => store.conversation(sessionConversationKey('root', session)).length);
    await store.close();
    expect(stored.map((steps) => steps > 0)).toEqual([true, false, true]);
  });

  it("memory only, a context let go loses only its turn's steps: the session's exchanges are in memory", async () => {
    const { rt, model } = await quietRuntime({ steps: answers(4, 'noted'), sessionsInMemoryPerAgent: 1 });
    const first = await rt.submit('one');
    await rt.waitForAnswer(first, { timeoutMs: 5_000 });
    await rt.waitForAnswer(await rt.submit('two'), { timeoutMs: 5_000 });
    await rt.waitForAnswer(await rt.submit('one again', { sessionId: first }), { timeoutMs: 5_000 });
    expect(promptsIn(model.requests[2])).toEqual(['one', 'one again']);
    expect(internalsOf(rt).society.agent('root')?.sessionsInMemory).toBe(1);
    await rt.shutdown();
  });

  it('each session continues its own context after a restart; terminating the agent clears every one', async () => {
    const dir = await dataDir();
    const first = await createRuntime({ dataDir: dir, model: new ScriptedModel(answers(2, 'first answer')), logger: new MemoryLogger() });
    await first.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await first.spawn({ role: 'worker' });
    const [a, b] = [await first.send(worker, 'a question'), await first.send(worker, 'b question')];
    await Promise.all([a, b].map((id) => first.waitForAnswer(id, { timeoutMs: 10_000 })));
    await first.shutdown();

    const model = new ScriptedModel(answers(2, 'second answer'));
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    await second.waitForAnswer(await second.send(worker, 'b again', { sessionId: b }), { timeoutMs: 10_000 });
    await second.waitForAnswer(await second.send(worker, 'a again', { sessionId: a }), { timeoutMs: 10_000 });
    expect(model.requests.map((request) => promptsIn(request))).toEqual([
      ['b question', 'b again'],
      ['a question', 'a again'],
    ]);
    await second.terminate(worker, { by: 'user' });
    await second.shutdown();
    const store = await openOrgStore({ dir });
    expect([a, b].map((session) => store.conversation(sessionConversationKey(worker, session)))).toEqual([[], []]);
    await store.close();
  });

  it('a store whose conversation was kept under the bare agent id: it is cleared with a log line, and the interrupted turn starts over', async () => {
    const dir = await dataDir();
    // As an older troupe left it mid-turn: one conversation for every session, under the bare id, its Task waiting.
    const { worker, task } = await workerLeftMidTurn(dir, 'count to 3', (id, waiting) => ({
      key: id,
      steps: [
        { role: 'system', content: 'You work.' },
        { role: 'user', content: 'an older session' },
        { role: 'user', content: taskAsPrompt(waiting) },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"1"}' }] },
      ],
    }));

    const model = new ScriptedModel([{ text: '1, 2, 3' }]);
    const logger = new MemoryLogger();
    const second = await createRuntime({ dataDir: dir, model, logger });
    expect(await second.waitForAnswer(task.id, { timeoutMs: 10_000 })).toMatchObject({ status: 'completed', result: { text: '1, 2, 3' } });
    expect(promptsIn(model.requests[0])).toEqual(['count to 3']);
    expect(model.requests[0]?.messages.some((message) => message.role === 'assistant')).toBe(false);
    expect(logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes('before sessions had their own'))).toBe(true);
    await second.shutdown();
    const reopened = await openOrgStore({ dir });
    expect(reopened.conversation(worker)).toEqual([]);
    expect(reopened.conversation(sessionConversationKey(worker, task.sessionId)).length).toBeGreaterThan(1);
    await reopened.close();
  });
});

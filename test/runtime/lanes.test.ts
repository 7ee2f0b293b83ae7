import { describe, expect, it, vi } from 'vitest';
import { OpenAIModel } from '../../src/llm/index.js';
import { SimulatedClock, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { HeldCallsModel, promptsIn } from '../support/heldCalls.js';
import { lastToolResult, modelByRole } from '../support/scriptByRole.js';
import { quietRuntime, rejectedCode, until } from '../support/runtimeFixture.js';
import { ReplyingModel } from '../support/workerModel.js';

// Session lanes (issue 14, point 6): an agent serves several sessions at once, a turn per session
// in a lane of its own, up to maxLanesPerAgent; a session's Tasks run in order; past the limit
// Tasks wait in the mailbox. Concurrency is read off the model calls in flight, never off a clock.

const later = cleanupAfterEach();

describe('session lanes', () => {
  it('ten sessions submitted at once to root are all at the model at once, each in its own context', async () => {
    // Every streamed chunk waits 300 ms on a clock only the test moves: no answer can come before all ten calls arrive.
    const clock = new SimulatedClock(1_000);
    const server = await startOpenAICompatibleServer({ clock, chunkDelayMs: 300, fallback: (request) => ({ text: `re: ${promptsIn(request).at(-1) ?? ''}` }) });
    later(() => server.close());
    const model = new OpenAIModel({ baseURL: server.baseURL, apiKey: 'test', model: 'm' });
    const { rt } = await quietRuntime({ model, maxConcurrentModelCalls: 10 });
    later(() => rt.shutdown({ drainTimeoutMs: 0 }).then(() => undefined));
    const questions = Array.from({ length: 10 }, (_, i) => `question ${i}`);
    const ids = await Promise.all(questions.map((text) => rt.submit(text)));

    await vi.waitFor(() => expect(server.chatCalls).toBe(10), { timeout: 30_000, interval: 5 });
    expect(rt.agent('root')).toMatchObject({ state: 'running.turn.thinking', lanes: 10, queued: 0 });
    expect(rt.inbox().filter((task) => task.status === 'completed')).toEqual([]);

    const answers = Promise.all(ids.map((id) => rt.waitForAnswer(id, { timeoutMs: 60_000 })));
    await vi.waitFor(
      () => {
        clock.advance(300);
        expect(rt.inbox().filter((task) => task.status === 'completed')).toHaveLength(10);
      },
      { timeout: 30_000, interval: 5 },
    );
    expect((await answers).map((answer) => answer.result)).toEqual(questions.map((text) => ({ text: `re: ${text}` })));
    // Each call held its own session's Task and nothing of the other nine.
    expect(server.chatRequests.map((request) => promptsIn(request)).sort()).toEqual(questions.map((text) => [text]).sort());
    expect(rt.agent('root')).toMatchObject({ state: 'running.idle', lanes: 0, usage: expect.objectContaining({ calls: 10 }) as unknown });
  });

  it('past maxLanesPerAgent Tasks wait; a freed lane goes to the oldest waiting Task of a session without one', async () => {
    const model = new HeldCallsModel();
    const { rt } = await quietRuntime({ model, maxLanesPerAgent: 2 });
    const a1 = await rt.submit('a1');
    const b1 = await rt.submit('b1');
    const c1 = await rt.submit('c1');
    const a2 = await rt.submit('a2', { sessionId: a1 });
    await until(() => model.waiting.length === 2, 'two lanes at the model');
    expect(model.waiting.map((call) => call.taskId)).toEqual([a1, b1]);
    expect(rt.agent('root')).toMatchObject({ lanes: 2, queued: 2 });

    // A's lane frees: both C's Task and A's second may take it; C's waited longer.
    model.callOf(a1)?.release();
    await until(() => model.callOf(c1) !== undefined, "c1's turn");
    expect(model.waiting.map((call) => call.taskId)).toEqual([b1, c1]);
    expect(rt.agent('root')).toMatchObject({ lanes: 2, queued: 1 });
    // B's lane frees: A's second Task, after A's first, in the context that holds it.
    model.callOf(b1)?.release();
    await until(() => model.callOf(a2) !== undefined, "a2's turn");
    expect(promptsIn(model.callOf(a2)?.request)).toEqual(['a1', 'a2']);
    model.callOf(c1)?.release();
    model.callOf(a2)?.release();
    const answers = await Promise.all([a1, b1, c1, a2].map((id) => rt.waitForAnswer(id, { timeoutMs: 10_000 })));
    expect(answers.map((answer) => answer.result)).toEqual(['a1', 'b1', 'c1', 'a2'].map((text) => ({ text: `answer to ${text}` })));
    await rt.shutdown();
  });

  it("a busy session's next Task waits while other sessions overtake it", async () => {
    const model = new HeldCallsModel();
    const { rt } = await quietRuntime({ model });
    const a1 = await rt.submit('a1');
    const a2 = await rt.submit('a2', { sessionId: a1 });
    const b1 = await rt.submit('b1');
    await until(() => model.waiting.length === 2, 'two lanes at the model');
    expect(model.waiting.map((call) => call.taskId)).toEqual([a1, b1]);
    expect(rt.agent('root')).toMatchObject({ lanes: 2, queued: 1 });
    model.callOf(b1)?.release();
    await rt.waitForAnswer(b1, { timeoutMs: 10_000 });
    expect(model.callOf(a2)).toBeUndefined();
    model.callOf(a1)?.release();
    await until(() => model.callOf(a2) !== undefined, "a2's turn");
    model.callOf(a2)?.release();
    await rt.waitForAnswer(a2, { timeoutMs: 10_000 });
    await rt.shutdown();
  });

  it("lanes' model calls share the runtime's limit: maxConcurrentModelCalls still bounds the society", async () => {
    const model = new HeldCallsModel();
    const { rt } = await quietRuntime({ model, maxConcurrentModelCalls: 2 });
    const ids = await Promise.all(['one', 'two', 'three', 'four'].map((text) => rt.submit(text)));
    await until(() => rt.agent('root')?.lanes === 4 && model.waiting.length === 2, 'four lanes, two at the model');
    for (let released = 0; released < 4; released++) {
      await until(() => model.waiting.length > 0, 'a call at the model');
      expect(model.waiting.length).toBeLessThanOrEqual(2);
      model.waiting[0]?.release();
    }
    await Promise.all(ids.map((id) => rt.waitForAnswer(id, { timeoutMs: 10_000 })));
    await rt.shutdown();
  });

  it('draining finishes every lane and every queued Task, then the agent is released', async () => {
    const model = new HeldCallsModel();
    const { rt } = await quietRuntime({ model });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    const sessions = [await rt.send(worker, 's1'), await rt.send(worker, 's2'), await rt.send(worker, 's3')];
    const queued = await rt.send(worker, 's1 again', { sessionId: sessions[0] });
    await until(() => model.waiting.length === 3, 'three lanes at the model');
    const terminating = rt.terminate(worker, { by: 'user' });
    expect(rt.agent(worker)).toMatchObject({ state: 'draining', lanes: 3, queued: 1 });
    expect(await rejectedCode(rt.send(worker, 'too late'))).toBe('agent_terminated');
    for (const call of model.waiting) call.release();
    await until(() => model.callOf(queued) !== undefined, 'the queued Task in its lane');
    model.callOf(queued)?.release();
    await terminating;
    const answers = await Promise.all([...sessions, queued].map((id) => rt.waitForAnswer(id, { timeoutMs: 10_000 })));
    expect(answers.map((answer) => answer.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(rt.agent(worker)).toMatchObject({ status: 'terminated', state: 'terminated', lanes: 0 });
    await rt.shutdown();
  });

  it('delegate_task from two sessions at once: the child serves both in lanes, each answer goes back to its session', async () => {
    let child = '';
    // Root delegates its prompt to the child, then answers with what the child said.
    const root = new ReplyingModel((request) => {
      const result = lastToolResult(request);
      if ('result' in result) return { text: `root: ${String(result['result'])}` };
      return { toolCalls: [{ name: 'delegate_task', arguments: { agentId: child, task: promptsIn(request).at(-1) ?? '' } }] };
    });
    const held = new HeldCallsModel();
    const { rt } = await quietRuntime({ model: modelByRole({ root, worker: held }) });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    child = await rt.spawn({ role: 'worker', parent: 'root' });
    const [left, right] = [await rt.submit('left'), await rt.submit('right')];
    await until(() => held.waiting.length === 2, "both delegations at the child's model");
    expect(rt.agent(child)?.lanes).toBe(2);
    expect(rt.agent('root')).toMatchObject({ lanes: 2, state: 'running.turn.acting' });
    for (const call of held.waiting) call.release();
    const answers = await Promise.all([left, right].map((id) => rt.waitForAnswer(id, { timeoutMs: 10_000 })));
    expect(answers.map((answer) => answer.result)).toEqual([{ text: 'root: answer to left' }, { text: 'root: answer to right' }]);
    await rt.shutdown();
  });
});

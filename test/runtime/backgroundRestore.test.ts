import { describe, expect, it } from 'vitest';
import type { ChatDelta, ChatRequest, ModelClient } from '../../src/llm/index.js';
import type { ChatOptions, EmbedOptions } from '../../src/llm/modelClient.js';
import type { Runtime, RuntimeOptions } from '../../src/runtime/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { MemoryLogger, ScriptedModel, societyOf } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { ConditionWatch } from '../support/conditionWatch.js';
import { RestoreGate, type WaitingTasksDataDir, hangs, restartHeld, restartSliceByAgent, waitingTasksDataDirForTest } from '../support/waitingTasksDataDir.js';

const later = cleanupAfterEach();

const builtDataDir = (agents: number, tasksEach: number): Promise<WaitingTasksDataDir> => waitingTasksDataDirForTest(later, agents, tasksEach);
const restart = (dir: string, options: RuntimeOptions): Promise<Runtime> => restartSliceByAgent(later, dir, options);

describe('a restart restores its agents in the background', () => {
  it('answers /health and the API while the restore is under way, /ready says restoring until it is over, and Tasks resume through the model-call limit', async () => {
    const built = await builtDataDir(100, 2);
    const watch = new ConditionWatch();
    const model = new CountedModel(new ScriptedModel(hangs(built.pendingTasks)), watch.changed);
    const logger = new MemoryLogger();
    const gate = new RestoreGate();
    // Every inspection event may be an agent entering a turn: the conditions below are checked again on each.
    const rt = await restartHeld(later, built.dir, { model, logger, maxConcurrentModelCalls: 2, inspect: watch.changed }, gate);
    const server = createHttpServer(rt);
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    later(() => server.close());
    const events: string[] = [];
    void rt.restored().then(() => events.push('restored'));

    // The restore waits before its first slice, for as long as these requests take: they are answered meanwhile.
    const health = await fetch(`${url}/health`);
    events.push(`health ${health.status}`);
    expect(rt.restoring).toBe(true);
    const ready = await fetch(`${url}/ready`);
    events.push(`ready ${ready.status}`);
    expect(await ready.json()).toEqual({ ready: false, state: 'restoring', restore: { agents: 101, restored: 0, tasks: 0 } });
    const last = built.agents.at(-1) ?? '';
    const agent = (await (await fetch(`${url}/api/agents/${last}`)).json()) as { state: string; queued: number };
    // Not started yet: its waiting Tasks are counted in the store.
    expect(agent).toMatchObject({ state: 'restoring', queued: 2 });

    // One slice starts one agent (root, the oldest); the API answers between slices.
    await gate.step();
    const between = (await (await fetch(`${url}/ready`)).json()) as { state: string; restore: { restored: number } };
    expect(between).toMatchObject({ state: 'restoring', restore: { restored: 1 } });
    expect(rt.restoring).toBe(true);

    gate.release();
    const final = await rt.restored();
    expect(events).toEqual(['health 200', 'ready 503', 'restored']);
    expect(final).toEqual({ agents: 101, restored: 101, tasks: built.pendingTasks, done: true });
    expect(await (await fetch(`${url}/ready`)).json()).toEqual({ ready: true, state: 'running' });
    expect(rt.agent(last)).toMatchObject({ queued: 1 });
    // Every agent but root resumes a turn, but only two model calls are in flight: the others wait for a slot.
    const thinking = (): number => rt.agents().filter((view) => view.state === 'running.turn.thinking').length;
    await watch.until(() => thinking() === 100 && model.calls >= 2);
    expect(model.calls).toBe(2);
    const logged = logger.entries.map((entry) => entry.message);
    expect(logged).toContain('restoring agents in the background');
    expect(logger.entries.find((entry) => entry.message === 'agents restored')?.fields).toMatchObject({
      agents: 101,
      restored: 101,
      tasks: built.pendingTasks,
    });
  });

  it('a Task sent to an agent not restored yet is answered after the Tasks it had waiting, over HTTP and rt.send alike', async () => {
    const built = await builtDataDir(20, 3);
    const gate = new RestoreGate();
    const rt = await restartHeld(later, built.dir, { model: new ScriptedModel(Array.from({ length: 100 }, () => ({ text: 'done' }))) }, gate);
    const server = createHttpServer(rt);
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    later(() => server.close());
    const answers = new ConditionWatch();
    const answered = new Map<string, string[]>();
    rt.onOutput((task) => {
      if (task.status === 'completed') answered.set(task.from, [...(answered.get(task.from) ?? []), task.id]);
      answers.changed();
    });

    const [viaSend, viaHttp] = built.agents.slice(-2) as [string, string];
    expect([rt.agent(viaSend)?.state, rt.agent(viaHttp)?.state]).toEqual(['restoring', 'restoring']);
    // rt.send starts its agent before it returns its promise; the HTTP request, once it reaches the runtime.
    const sending = rt.send(viaSend, 'late job', { sessionId: built.sessions.get(viaSend) });
    expect(rt.agent(viaSend)?.state).not.toBe('restoring');
    const reply = await fetch(`${url}/api/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // In the agent's session: the late Task waits behind the ones it had waiting.
      body: JSON.stringify({ agentId: viaHttp, text: 'late job', sessionId: built.sessions.get(viaHttp) }),
    });
    expect(reply.status).toBe(201);
    // The background restore is held before its first slice: the two Tasks started their agents, and nothing else did.
    expect(rt.restoreState().restored).toBe(2);
    const { messageId } = (await reply.json()) as { messageId: string };
    const sent = await sending;
    gate.release();

    await answers.until(() => answered.get(viaHttp)?.length === 4 && answered.get(viaSend)?.length === 4);
    expect(answered.get(viaHttp)).toEqual([...(built.tasks.get(viaHttp) ?? []), messageId]);
    expect(answered.get(viaSend)).toEqual([...(built.tasks.get(viaSend) ?? []), sent]);
  });

  it("a restored agent's first Task is admitted against mailboxLimit as it would be once restored (one Task in a turn, the rest queued)", async () => {
    const built = await builtDataDir(10, 3);
    const rt = await restart(built.dir, { model: new ScriptedModel(hangs(50)), mailboxLimit: 3 });
    const last = built.agents.at(-1) ?? '';
    expect(rt.agent(last)?.state).toBe('restoring');
    // Once restored it holds one Task in a turn and two queued: one more fits, a second does not.
    const sessionId = built.sessions.get(last);
    const accepted = await rt.send(last, 'fits', { sessionId });
    await expect(rt.send(last, 'one too many', { sessionId })).rejects.toMatchObject({ code: 'mailbox_full' });
    await rt.restored();
    const snapshot = turnAndMailbox(rt, last);
    expect(snapshot.current).toBe(built.tasks.get(last)?.[0]);
    expect(snapshot.mailbox).toEqual([...(built.tasks.get(last) ?? []).slice(1), accepted]);
  });
});

/** The Task in `agentId`'s turn (its one lane) and those queued behind it, by id. */
function turnAndMailbox(rt: Runtime, agentId: string): { current: string | undefined; mailbox: string[] } {
  const context = societyOf(rt).agent(agentId)?.actor.getSnapshot().context;
  return { current: context?.lanes[0]?.task.id, mailbox: context?.mailbox.map((task) => task.id) ?? [] };
}

/** A model that counts the calls it is given (those the model-call limit let through) and tells `onCall` of each. */
class CountedModel implements ModelClient {
  readonly name: string;
  readonly scripted = true;
  calls = 0;

  constructor(
    private readonly inner: ModelClient,
    private readonly onCall: () => void,
  ) {
    this.name = inner.name;
  }

  async *chat(request: ChatRequest, options?: ChatOptions): AsyncGenerator<ChatDelta> {
    this.calls++;
    this.onCall();
    yield* this.inner.chat(request, options);
  }

  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    return this.inner.embed(texts, options);
  }
}

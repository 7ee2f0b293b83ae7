import { describe, expect, it } from 'vitest';
import type { Runtime, RuntimeOptions } from '../../src/runtime/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { MemoryLogger, ScriptedModel, societyOf } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { until } from '../support/runtimeFixture.js';
import { type WaitingTasksDataDir, hangs, restartSliceByAgent, waitingTasksDataDirForTest } from '../support/waitingTasksDataDir.js';

const later = cleanupAfterEach();

const builtDataDir = (agents: number, tasksEach: number): Promise<WaitingTasksDataDir> => waitingTasksDataDirForTest(later, agents, tasksEach);
const restart = (dir: string, options: RuntimeOptions): Promise<Runtime> => restartSliceByAgent(later, dir, options);

describe('a restart restores its agents in the background', () => {
  it('answers /health and the API before restored() resolves, /ready says restoring until then, and Tasks resume through the model-call limit', async () => {
    const built = await builtDataDir(100, 2);
    const model = new ScriptedModel(hangs(built.pendingTasks));
    const logger = new MemoryLogger();
    const rt = await restart(built.dir, { model, logger, maxConcurrentModelCalls: 2 });
    const server = createHttpServer(rt);
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    later(() => server.close());
    const events: string[] = [];
    void rt.restored().then(() => events.push('restored'));

    // One agent a slice, a turn of the event loop between slices: the requests are answered between them.
    const health = await fetch(`${url}/health`);
    events.push(`health ${health.status}`);
    expect(rt.restoring).toBe(true);
    const ready = await fetch(`${url}/ready`);
    events.push(`ready ${ready.status}`);
    const readyBody = (await ready.json()) as { ready: boolean; state: string; restore: { agents: number; restored: number; tasks: number } };
    expect(readyBody).toMatchObject({ ready: false, state: 'restoring', restore: { agents: 101 } });
    expect(readyBody.restore.restored).toBeLessThan(101);
    const last = built.agents.at(-1) ?? '';
    const agent = (await (await fetch(`${url}/api/agents/${last}`)).json()) as { state: string; queued: number };
    // Not started yet: its waiting Tasks are counted in the store.
    expect(agent).toMatchObject({ state: 'restoring', queued: 2 });
    expect(rt.restoring).toBe(true);

    const final = await rt.restored();
    expect(events).toEqual(['health 200', 'ready 503', 'restored']);
    expect(final).toEqual({ agents: 101, restored: 101, tasks: built.pendingTasks, done: true });
    expect(await (await fetch(`${url}/ready`)).json()).toEqual({ ready: true, state: 'running' });
    expect(rt.agent(last)).toMatchObject({ queued: 1 });
    // Every agent has a turn to resume, but only two model calls are in flight.
    await until(() => model.requests.length >= 2, 'the first resumed model calls');
    expect(model.requests).toHaveLength(2);
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
    const rt = await restart(built.dir, { model: new ScriptedModel(Array.from({ length: 100 }, () => ({ text: 'done' }))) });
    const server = createHttpServer(rt);
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    later(() => server.close());
    const answered = new Map<string, string[]>();
    rt.onOutput((task) => {
      if (task.status === 'completed') answered.set(task.from, [...(answered.get(task.from) ?? []), task.id]);
    });

    const [viaHttp, viaSend] = built.agents.slice(-2) as [string, string];
    expect([rt.agent(viaHttp)?.state, rt.agent(viaSend)?.state]).toEqual(['restoring', 'restoring']);
    const reply = await fetch(`${url}/api/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: viaHttp, text: 'late job' }),
    });
    expect(reply.status).toBe(201);
    const { messageId } = (await reply.json()) as { messageId: string };
    const sent = await rt.send(viaSend, 'late job');

    await until(() => answered.get(viaHttp)?.length === 4 && answered.get(viaSend)?.length === 4, 'every Task of both agents answered', 20_000);
    expect(answered.get(viaHttp)).toEqual([...(built.tasks.get(viaHttp) ?? []), messageId]);
    expect(answered.get(viaSend)).toEqual([...(built.tasks.get(viaSend) ?? []), sent]);
  });

  it("a restored agent's first Task is admitted against mailboxLimit as it would be once restored (one Task in a turn, the rest queued)", async () => {
    const built = await builtDataDir(10, 3);
    const rt = await restart(built.dir, { model: new ScriptedModel(hangs(50)), mailboxLimit: 3 });
    const last = built.agents.at(-1) ?? '';
    expect(rt.agent(last)?.state).toBe('restoring');
    // Once restored it holds one Task in a turn and two queued: one more fits, a second does not.
    const accepted = await rt.send(last, 'fits');
    await expect(rt.send(last, 'one too many')).rejects.toMatchObject({ code: 'mailbox_full' });
    await rt.restored();
    const snapshot = turnAndMailbox(rt, last);
    expect(snapshot.current).toBe(built.tasks.get(last)?.[0]);
    expect(snapshot.mailbox).toEqual([...(built.tasks.get(last) ?? []).slice(1), accepted]);
  });
});

/** The Task in `agentId`'s turn and those queued behind it, by id. */
function turnAndMailbox(rt: Runtime, agentId: string): { current: string | undefined; mailbox: string[] } {
  const context = societyOf(rt).agent(agentId)?.actor.getSnapshot().context;
  return { current: context?.current?.id, mailbox: context?.mailbox.map((task) => task.id) ?? [] };
}

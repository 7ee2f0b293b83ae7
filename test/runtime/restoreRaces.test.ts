import { describe, expect, it } from 'vitest';
import type { Runtime, RuntimeOptions } from '../../src/runtime/index.js';
import { Actions, type Task, createTask } from '../../src/task/index.js';
import { ScriptedModel, SimulatedClock } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { recordBus, tick, until } from '../support/runtimeFixture.js';
import { type WaitingTasksDataDir, hangs, restartSliceByAgent, waitingTasksDataDirForTest } from '../support/waitingTasksDataDir.js';
import { internalsOf } from '../../src/runtime/internals.js';

const later = cleanupAfterEach();

const builtDataDir = (agents: number, tasksEach: number): Promise<WaitingTasksDataDir> => waitingTasksDataDirForTest(later, agents, tasksEach);
const restart = (dir: string, options: RuntimeOptions = {}): Promise<Runtime> =>
  restartSliceByAgent(later, dir, { model: new ScriptedModel(hangs(200)), ...options });

/** The Tasks in `agentId`'s lanes and those queued behind them, by id. */
function turnAndMailbox(rt: Runtime, agentId: string): string[] {
  const context = internalsOf(rt).society.agent(agentId)?.actor.getSnapshot().context;
  return [...(context?.lanes.map((lane) => lane.task.id) ?? []), ...(context?.mailbox.map((task) => task.id) ?? [])];
}

describe('while a restart restores its agents', () => {
  it("another agent's Task to an agent not restored yet starts it and queues behind the Tasks it had waiting", async () => {
    const built = await builtDataDir(10, 3);
    const rt = await restart(built.dir);
    const [from, to] = [built.agents[0] ?? '', built.agents.at(-1) ?? ''];
    expect(rt.agent(to)?.state).toBe('restoring');
    // What delegate_task and send_message publish, from an agent to another.
    // In the session of the Tasks it had waiting, so it waits behind them rather than taking a lane of its own.
    const delegated = createTask(
      { from, to, action: Actions.execute, sessionId: built.sessions.get(to), parameters: { text: 'sub-task' } },
      internalsOf(rt).society,
    );
    rt.bus.publish(delegated);
    expect(rt.agent(to)?.state).not.toBe('restoring');
    await rt.restored();
    expect(turnAndMailbox(rt, to)).toEqual([...(built.tasks.get(to) ?? []), delegated.id]);
  });

  it('lists agents not restored yet as restoring with the Tasks they have waiting, and counts them as live', async () => {
    const built = await builtDataDir(10, 3);
    const rt = await restart(built.dir, { maxLiveAgents: 11 });
    const page = rt.agentPage({ status: 'active' });
    expect(page.total).toBe(11);
    const last = page.agents.find((agent) => agent.id === built.agents.at(-1));
    expect(last).toMatchObject({ status: 'active', state: 'restoring', queued: 3 });
    // Restored agents count against maxLiveAgents before their actors run.
    await expect(rt.spawn({ role: 'w' })).rejects.toMatchObject({ code: 'agent_limit' });
    await rt.restored();
    expect(rt.agentPage({ status: 'active' }).agents.filter((agent) => agent.state === 'restoring')).toEqual([]);
  });

  it('terminating an agent not restored yet cancels the Tasks it had waiting, and the background restore never brings it back', async () => {
    const built = await builtDataDir(10, 3);
    const rt = await restart(built.dir);
    const seen = recordBus(rt);
    const gone = built.agents.at(-1) ?? '';
    expect(rt.agent(gone)?.state).toBe('restoring');
    await rt.terminate(gone, { by: 'user', mode: 'abort', reason: 'not needed' });
    const canceled = seen.filter((task: Task) => task.from === gone && task.status === 'canceled').map((task) => task.id);
    expect(canceled).toEqual(built.tasks.get(gone));
    const final = await rt.restored();
    expect(final).toMatchObject({ agents: 11, restored: 11, done: true });
    expect(rt.agent(gone)).toMatchObject({ status: 'terminated', state: 'terminated' });
    await expect(rt.send(gone, 'still there?')).rejects.toMatchObject({ code: 'agent_terminated' });
  });

  it('a shutdown in the middle of the restore loses nothing: the next start hands every waiting Task back, in order', async () => {
    const built = await builtDataDir(20, 3);
    const rt = await restart(built.dir);
    // Started early by another agent's Task (its waiting record not yet written), while the rest wait for the background restore.
    const late = built.agents.at(-1) ?? '';
    const extra = createTask(
      { from: built.agents[0] ?? '', to: late, action: Actions.execute, sessionId: built.sessions.get(late), parameters: { text: 'late job' } },
      internalsOf(rt).society,
    );
    rt.bus.publish(extra);
    expect(rt.agent(late)?.state).not.toBe('restoring');
    expect(rt.restoring).toBe(true);
    const summary = await rt.shutdown({ drainTimeoutMs: 0 });
    const cut = await rt.restored();
    expect(cut.done).toBe(true);
    expect(cut.restored).toBeLessThan(cut.agents);
    // The agents never started still had theirs in the store, and are counted.
    expect(summary.pendingTasks).toBe(built.pendingTasks + 1);

    const again = await restart(built.dir);
    expect(await again.restored()).toMatchObject({ agents: 21, restored: 21, tasks: built.pendingTasks + 1, done: true });
    for (const agentId of built.agents) {
      const expected = [...(built.tasks.get(agentId) ?? []), ...(agentId === late ? [extra.id] : [])];
      expect(turnAndMailbox(again, agentId)).toEqual(expected);
    }
  });

  it('a shutdown stops the background restore at once: no agent starts while the drain waits', async () => {
    const built = await builtDataDir(20, 1);
    const clock = new SimulatedClock();
    const rt = await restart(built.dir, { clock });
    await until(() => rt.restoreState().restored >= 3, 'a few agents restored');
    // The drain waits for the busy agents until the deadline, on the simulated clock: many turns of the event loop go by.
    const shutdown = rt.shutdown({ drainTimeoutMs: 1_000 });
    const atShutdown = rt.restoreState().restored;
    expect(atShutdown).toBeLessThan(21);
    for (let i = 0; i < 100; i++) await tick();
    expect(rt.state).toBe('draining');
    expect(rt.restoreState()).toMatchObject({ restored: atShutdown, done: true });
    clock.advance(1_000);
    expect((await shutdown).pendingTasks).toBe(built.pendingTasks);
  });
});

import { describe, expect, it } from 'vitest';
import { openOrgStore } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { finalStatuses } from '../../src/task/index.js';
import { MemoryLogger, ScriptedModel, SimulatedClock, societyOf } from '../../src/testing.js';
import { giveAll } from '../support/agentTree.js';
import { orgHarness } from '../support/orgStoreFixture.js';
import { until, waitTicksTool } from '../support/runtimeFixture.js';
import { WorkerModel } from '../support/workerModel.js';

// A drain on a data dir: the termination record says the mode, and what the drain left is
// handled as an abort's is (the store's markTerminated): answered `canceled`, never handed back.

const { tempDir } = orgHarness();

describe('draining on an organisation store', () => {
  it('records the mode of each termination, and what a drain left at its deadline is cancelled and not handed back after a restart', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock(1_000);
    const model = new WorkerModel();
    // commitDelayMs 0: held writes commit at once, with no timer on the simulated clock but the drain's.
    const first = await createRuntime({ dataDir: dir, clock, model, tools: [waitTicksTool], logger: new MemoryLogger(), commitDelayMs: 0 });
    await first.createRole({ name: 'worker', prompt: 'You do work.' });
    const drained = await first.spawn({ role: 'worker' });
    const cut = await first.spawn({ role: 'worker' });
    const aborted = await first.spawn({ role: 'worker' });
    const [done, hanging, behind] = await giveAll(
      first,
      [
        { agentId: cut, text: 'work 1' },
        { agentId: cut, text: 'hang' },
        { agentId: cut, text: 'work 0' },
      ],
      { oneSessionPerAgent: true },
    );
    const [finished] = await giveAll(first, [{ agentId: drained, text: 'work 2' }]);
    await until(() => model.requests.length >= 4, 'the hanging call');

    // The drain that finishes in time answers its Task; the one cut at its deadline cancels what is left.
    await first.terminate(drained, { by: 'user' });
    const cutting = first.terminate(cut, { by: 'user', reason: 'enough', drainTimeoutMs: 50 });
    await until(() => clock.pending > 0, 'the drain deadline');
    clock.advance(50);
    await cutting;
    await first.terminate(aborted, { by: 'user', mode: 'abort' });
    const answer = (taskId: string | undefined) => first.inbox().find((task) => task.id === taskId && finalStatuses.has(task.status));
    expect(answer(finished)).toMatchObject({ status: 'completed', result: { text: `done: ${finished}` } });
    expect(answer(done)).toMatchObject({ status: 'completed' });
    for (const taskId of [hanging, behind]) expect(answer(taskId)).toMatchObject({ status: 'canceled', error: { code: 'agent_terminated' } });
    await first.shutdown();

    const store = await openOrgStore({ dir });
    const modes = Object.fromEntries(store.terminations().map((termination) => [termination.agentId, [termination.mode, termination.reason]]));
    expect(modes).toEqual({ [drained]: ['drain', 'terminated by user'], [cut]: ['drain', 'enough'], [aborted]: ['abort', 'terminated by user'] });
    for (const id of [drained, cut, aborted]) {
      expect(store.agent(id)?.status).toBe('terminated');
      expect(store.waiting(id)).toEqual([]);
    }
    await store.close();

    // Nothing of theirs comes back: no Task handed back, no model call.
    const again = new ScriptedModel([]);
    const second = await createRuntime({ dataDir: dir, model: again, logger: new MemoryLogger() });
    for (const id of [drained, cut, aborted]) expect(second.agent(id)).toMatchObject({ status: 'terminated', state: 'terminated', queued: 0 });
    const restored = second.inbox().filter((task) => (task.id === hanging || task.id === behind) && finalStatuses.has(task.status));
    expect(restored.map((task) => task.status)).toEqual(['canceled', 'canceled']);
    await second.shutdown();
    expect(again.requests).toEqual([]);
  });

  it('a shutdown that cuts a drain short still records the termination before the store closes; the agent stays terminated', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock(1_000);
    const model = new WorkerModel();
    const first = await createRuntime({ dataDir: dir, clock, model, logger: new MemoryLogger(), commitDelayMs: 0 });
    await first.createRole({ name: 'worker', prompt: 'You do work.' });
    const id = await first.spawn({ role: 'worker' });
    const [stuck] = await giveAll(first, [{ agentId: id, text: 'hang' }]);
    await until(() => model.requests.length === 1, 'the hanging call');
    const terminating = first.terminate(id, { by: 'user', reason: 'going', drainTimeoutMs: 60_000 });
    // A persistent shutdown only stops agents, keeping their work for the restart; one being terminated is terminated.
    const shutdown = first.shutdown({ drainTimeoutMs: 10 });
    await until(() => clock.pending >= 2, 'both deadlines');
    clock.advance(10);
    await shutdown;
    await terminating;
    expect(first.inbox().find((task) => task.id === stuck && task.status === 'canceled')?.error?.message).toContain('drain cut short by shutdown');

    const again = new ScriptedModel([]);
    const second = await createRuntime({ dataDir: dir, model: again, logger: new MemoryLogger() });
    expect(second.agent(id)).toMatchObject({ status: 'terminated', state: 'terminated', queued: 0 });
    expect(societyOf(second).terminations()).toEqual([expect.objectContaining({ agentId: id, mode: 'drain', reason: 'going' })]);
    await second.shutdown();
    expect(again.requests).toEqual([]);
  });
});

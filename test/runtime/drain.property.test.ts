import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/index.js';
import { Actions, type Task, finalStatuses } from '../../src/task/index.js';
import { SimulatedClock, societyOf } from '../../src/testing.js';
import { giveAll, spawnTree, subtree, treeArb } from '../support/agentTree.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { quietRuntime, recordBus, rejectedCode, tick, until, waitTicksTool } from '../support/runtimeFixture.js';
import { WorkerModel } from '../support/workerModel.js';

// Property 8 of seed 004 (`_drainAgentQueue`): an agent terminated in drain mode refuses new
// Tasks, finishes the turn in progress and works through what it had queued, children before
// their parent is released; only what is left at the drain deadline is answered `canceled`.

/** Work for the agents of a tree: each Task goes to the n-th agent (root included) and takes `rounds` tool rounds. */
const workArb = fc.array(fc.record({ agent: fc.nat(), rounds: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 8 });

function finalAnswer(rt: Runtime, taskId: string): Task | undefined {
  return rt.inbox().find((task) => task.id === taskId && finalStatuses.has(task.status));
}

/** Model calls each agent has made so far. */
function callsOf(rt: Runtime, ids: readonly string[]): number[] {
  return ids.map((id) => rt.agent(id)?.usage.calls ?? -1);
}

describe('drain (property 8)', () => {
  it('every Task queued at a subtree terminated in drain mode gets a real answer when the drain finishes in time', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, fc.nat(), workArb, fc.integer({ min: 0, max: 6 }), async (choices, pick, work, ticksBefore) => {
        // The deadline runs on a simulated clock that never moves: every drain here finishes in time.
        const clock = new SimulatedClock(1_000);
        const { rt } = await quietRuntime({ clock, model: new WorkerModel(), tools: [waitTicksTool] });
        const nodes = await spawnTree(rt, choices);
        const ids = [...nodes.keys()];
        const sent = await giveAll(
          rt,
          work.map(({ agent, rounds }) => ({ agentId: ids[agent % ids.length] ?? 'root', text: `work ${rounds}` })),
        );
        for (let i = 0; i < ticksBefore; i++) await tick();
        const target = ids[pick % ids.length] ?? 'root';
        const gone = subtree(nodes, target);
        const by = nodes.get(target)?.parent ?? 'user';
        const seen = recordBus(rt);

        const terminating = rt.terminate(target, { by, mode: 'drain' });
        // Intake closed at once, for the whole subtree: new Tasks and children are refused (all asked before anything is awaited).
        for (const id of gone) expect(rt.agent(id)?.state).toBe('draining');
        const refusals = gone.flatMap((id) => [rejectedCode(rt.send(id, 'too late')), rejectedCode(rt.spawn({ role: 'worker', parent: id }))]);
        expect(await Promise.all(refusals)).toEqual(refusals.map(() => 'agent_terminated'));
        await terminating;
        const callsAtEnd = callsOf(rt, gone);

        // Every Task given before the termination was answered by a turn, in the subtree and out of it.
        await until(() => sent.every((taskId) => finalAnswer(rt, taskId) !== undefined), 'every answer');
        for (const taskId of sent) expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'completed', result: { text: `done: ${taskId}` } });
        // Drained before released: no notice of a termination precedes an answer of the subtree.
        const answeredAt = seen.flatMap((task, index) => (gone.includes(task.from) && finalStatuses.has(task.status) && task.to === 'user' ? [index] : []));
        const releasedAt = seen.flatMap((task, index) => (task.action === Actions.terminated && gone.includes(task.from) ? [index] : []));
        expect(releasedAt).toHaveLength(gone.length);
        expect(Math.max(-1, ...answeredAt)).toBeLessThan(Math.min(...releasedAt));
        for (const id of gone) {
          expect(rt.agent(id)).toMatchObject({ status: 'terminated', state: 'terminated' });
          expect(
            societyOf(rt)
              .terminations()
              .filter((t) => t.agentId === id),
          ).toEqual([expect.objectContaining({ mode: 'drain' })]);
        }
        for (const id of ids.filter((id) => !gone.includes(id))) expect(rt.agent(id)?.status).toBe('active');
        // No drain or turn timer is left behind: only the memory compactor's sweep.
        expect(clock.pending).toBe(1);
        await rt.shutdown();
        expect(clock.pending).toBe(0);
        // No model call starts once an agent is terminated.
        expect(callsOf(rt, gone)).toEqual(callsAtEnd);
      }),
      loggedSeed('drain in time'),
    );
  });

  it('at the drain deadline (per call or per runtime), what is left is canceled with the reason; what was answered stays answered', async () => {
    const caseArb = fc.record({
      // For each Task of the target, in order: quick (answered at once) or hanging (its model call never returns).
      tasks: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
      perCall: fc.boolean(),
      child: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ tasks, perCall, child }) => {
        const clock = new SimulatedClock(1_000);
        const model = new WorkerModel();
        const { rt } = await quietRuntime({ clock, model, tools: [waitTicksTool], ...(perCall ? {} : { drainTimeoutMs: 50 }) });
        await rt.createRole({ name: 'worker', prompt: 'You do work.' });
        const target = await rt.spawn({ role: 'worker' });
        const ids = child ? [target, await rt.spawn({ role: 'worker', parent: target })] : [target];
        // The child, if any, has one hanging Task too, so it is still busy at the deadline.
        const sent = await giveAll(
          rt,
          [...tasks.map((quick) => ({ agentId: target, text: quick ? 'work 0' : 'hang' })), ...ids.slice(1).map((agentId) => ({ agentId, text: 'hang' }))],
          { oneSessionPerAgent: true },
        );
        // The target's Tasks are one session: up to the first hanging Task, the target answers; that
        // one hangs, and the rest wait behind it.
        const firstHang = tasks.indexOf(false);
        const answered = firstHang === -1 ? tasks.length : firstHang;
        await until(() => model.requests.length === Math.min(answered + 1, tasks.length) + ids.length - 1, 'the hanging calls');

        const terminating = rt.terminate(target, { by: 'user', reason: 'budget spent', ...(perCall ? { drainTimeoutMs: 50 } : {}) });
        const settled = terminating.then(() => true);
        if (firstHang !== -1 || child) {
          await until(() => clock.pending > 0, 'the drain deadline');
          clock.advance(49);
          for (let i = 0; i < 3; i++) await tick();
          expect(await Promise.race([settled, Promise.resolve(false)])).toBe(false);
          expect(rt.agent(target)?.state).toBe('draining');
          clock.advance(1);
        }
        await terminating;
        const calls = model.requests.length;

        for (const [index, taskId] of sent.entries()) {
          if (index < answered) expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'completed', result: { text: `done: ${taskId}` } });
          else {
            const reply = finalAnswer(rt, taskId);
            expect(reply).toMatchObject({ status: 'canceled', error: { code: 'agent_terminated' } });
            expect(reply?.error?.message).toContain('budget spent');
            expect(reply?.error?.message).toContain('not drained within 50 ms');
          }
        }
        for (const id of ids) expect(rt.agent(id)).toMatchObject({ status: 'terminated', state: 'terminated' });
        await rt.shutdown();
        expect(model.requests).toHaveLength(calls);
      }),
      loggedSeed('drain deadline'),
    );
  });
});

import { societyOf } from '../../src/testing.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/index.js';
import { type Task, finalStatuses } from '../../src/task/index.js';
import { SimulatedClock } from '../../src/testing.js';
import { answers, quietRuntime, rejectedCode, tick, until, waitTicksTool } from '../support/runtimeFixture.js';
import { WorkerModel } from '../support/workerModel.js';
import { giveAll } from '../support/agentTree.js';

// Property 14 of seed 004: graceful shutdown stops intake at once, lets work in flight finish
// (up to the drain timeout), cancels what is left, stops every agent and reports a consistent summary.
// Here through `rt.shutdown()` on a simulated clock; test/cli/serveShutdown.property.test.ts drives
// the same through `troupe serve`'s own path, with real signals and its summary log line.

const workloadArb = fc.record({
  // For each extra agent: top level (false) or a child of root (true).
  agents: fc.array(fc.boolean(), { maxLength: 3 }),
  tasks: fc.array(fc.record({ agent: fc.nat(), rounds: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 8 }),
  ticksBeforeShutdown: fc.integer({ min: 0, max: 6 }),
});

async function spawnAgents(rt: Runtime, underRoot: readonly boolean[]): Promise<string[]> {
  await rt.createRole({ name: 'worker', prompt: 'You do work.' });
  const ids = ['root'];
  for (const child of underRoot) ids.push(await rt.spawn(child ? { role: 'worker', parent: 'root' } : { role: 'worker' }));
  return ids;
}

async function expectIntakeClosed(rt: Runtime, agentId: string): Promise<void> {
  expect(await rejectedCode(rt.submit('more work'))).toBe('intake_closed');
  expect(await rejectedCode(rt.send(agentId, 'more work'))).toBe('intake_closed');
  expect(await rejectedCode(rt.spawn({ role: 'worker' }))).toBe('intake_closed');
}

function finalAnswer(rt: Runtime, taskId: string): Task | undefined {
  return rt.inbox().find((task) => task.id === taskId && finalStatuses.has(task.status));
}

describe('graceful shutdown (property 14)', () => {
  it('with work that finishes: intake closes at once, every task is answered, the summary is consistent', async () => {
    await fc.assert(
      fc.asyncProperty(workloadArb, async ({ agents, tasks, ticksBeforeShutdown }) => {
        const { rt } = await quietRuntime({ model: new WorkerModel(), tools: [waitTicksTool] });
        const ids = await spawnAgents(rt, agents);
        const sent = await giveAll(
          rt,
          tasks.map(({ agent, rounds }) => ({ agentId: ids[agent % ids.length] ?? 'root', text: `work ${rounds}` })),
        );
        for (let i = 0; i < ticksBeforeShutdown; i++) await tick();
        const liveBefore = societyOf(rt).liveIds().length;

        const shutdown = rt.shutdown();
        await expectIntakeClosed(rt, 'root');
        const summary = await shutdown;

        await expectIntakeClosed(rt, 'root');
        expect(rt.state).toBe('terminated');
        expect(summary.drained).toBe(true);
        expect(summary).toMatchObject({ agents: rt.agents().length, terminatedAgents: liveBefore, pendingTasks: 0 });
        expect(summary.elapsedMs).toBeGreaterThanOrEqual(0);
        for (const taskId of sent) {
          expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'completed', result: { text: `done: ${taskId}` } });
        }
        for (const agent of rt.agents()) expect(agent).toMatchObject({ status: 'terminated', state: 'terminated' });
        expect(societyOf(rt).liveIds()).toEqual([]);
        await expect(rt.shutdown()).resolves.toBe(summary);
      }),
      { numRuns: 100 },
    );
  });

  it('with work that hangs: the drain times out, pendingTasks counts what was left, and each of those is canceled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { maxLength: 3 }),
        // Finished before shutdown, then left hanging or queued at shutdown: agent index per task.
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        async (agents, finishedAt, hangingAt) => {
          const clock = new SimulatedClock(1_000);
          const { rt, model } = await quietRuntime({ clock, steps: answers(finishedAt.length) });
          const ids = await spawnAgents(rt, agents);
          const target = (n: number): string => ids[n % ids.length] ?? 'root';

          const finished = await giveAll(
            rt,
            finishedAt.map((n) => ({ agentId: target(n), text: 'quick' })),
          );
          await until(() => finished.every((taskId) => finalAnswer(rt, taskId) !== undefined), 'the quick tasks');
          // Each busy agent's first model call hangs; its other Tasks (of the same session) wait in its mailbox.
          const busy = new Set(hangingAt.map(target));
          model.push(...Array.from(busy, () => ({ hang: true as const })), ...answers(8, 'too late'));
          const hanging = await giveAll(
            rt,
            hangingAt.map((n) => ({ agentId: target(n), text: 'slow' })),
            { oneSessionPerAgent: true },
          );
          await until(() => model.requests.length === finished.length + busy.size, 'the hanging calls');
          const liveBefore = societyOf(rt).liveIds().length;

          const shutdown = rt.shutdown({ drainTimeoutMs: 50 });
          await expectIntakeClosed(rt, 'root');
          await until(() => clock.pending > 0, 'the drain timer');
          clock.advance(49);
          await tick();
          expect(rt.state).toBe('draining');
          clock.advance(1);
          const summary = await shutdown;

          expect(summary).toEqual({ agents: rt.agents().length, terminatedAgents: liveBefore, pendingTasks: hanging.length, drained: false, elapsedMs: 50 });
          for (const taskId of finished) expect(finalAnswer(rt, taskId)?.status).toBe('completed');
          for (const taskId of hanging) {
            expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'canceled', error: { code: 'agent_terminated' } });
          }
          expect(model.requests).toHaveLength(finished.length + busy.size);
          for (const agent of rt.agents()) expect(agent).toMatchObject({ status: 'terminated', state: 'terminated' });
          await expectIntakeClosed(rt, 'root');
        },
      ),
      { numRuns: 100 },
    );
  });
});

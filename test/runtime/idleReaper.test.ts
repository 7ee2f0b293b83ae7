import { describe, expect, it } from 'vitest';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel, SimulatedClock, societyOf } from '../../src/testing.js';
import { until } from '../support/runtimeFixture.js';

// Issue 30, point 2: with `reapIdleChildrenAfterMs`, a child agent that has had no work for that
// long (with its whole subtree) is terminated by the runtime; top-level agents never are, and
// the option is off by default.

/** Root, a child of root with a child of its own, and a top-level agent, all idle. */
async function society(options: { reapIdleChildrenAfterMs?: number }): Promise<{ rt: Runtime; clock: SimulatedClock; ids: string[] }> {
  const clock = new SimulatedClock();
  const rt = await createRuntime({ model: new ScriptedModel([{ text: 'done' }]), logger: new MemoryLogger(), clock, ...options });
  await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
  const child = await rt.spawn({ role: 'worker', parent: 'root' });
  const grandchild = await rt.spawn({ role: 'worker', parent: child });
  const top = await rt.spawn({ role: 'worker' });
  const ids = ['root', child, grandchild, top];
  await until(() => ids.every((id) => rt.agent(id)?.state === 'running.idle'), 'every agent idle');
  return { rt, clock, ids };
}

const statuses = (rt: Runtime, ids: readonly string[]): (string | undefined)[] => ids.map((id) => rt.agent(id)?.status);

describe('reapIdleChildrenAfterMs', () => {
  it('terminates each child idle past the limit, counting from its last work, as the runtime', async () => {
    const { rt, clock, ids } = await society({ reapIdleChildrenAfterMs: 60_000 });
    const [, child = '', grandchild = ''] = ids;
    clock.advance(45_000);
    // Work at 45 s: the child is idle again from then on.
    const taskId = await rt.send(child, 'one more thing');
    expect((await rt.waitForAnswer(taskId, { timeoutMs: 5_000 })).status).toBe('completed');
    await until(() => rt.agent(child)?.state === 'running.idle', 'the child idle again');
    // The grandchild, idle from the start, goes at 60 s on its own; the child, busy at 45 s, stays.
    clock.advance(59_000);
    await until(() => rt.agent(grandchild)?.status === 'terminated', 'the idle grandchild terminated');
    expect(statuses(rt, ids)).toEqual(['active', 'active', 'terminated', 'active']);
    // Between the limit and a quarter more after the last work, it is gone.
    clock.advance(16_000);
    await until(() => rt.agent(child)?.status === 'terminated', 'the idle child terminated');
    expect(statuses(rt, ids)).toEqual(['active', 'terminated', 'terminated', 'active']);
    const ended = societyOf(rt).terminations();
    expect(ended.map((t) => [t.agentId, t.terminatedBy, t.at])).toEqual([
      [grandchild, 'runtime', 60_000],
      [child, 'runtime', 105_000],
    ]);
    expect(ended.find((t) => t.agentId === child)?.reason).toBe('idle for more than 60000 ms (reapIdleChildrenAfterMs)');
    // Its parent asking again later is no error.
    await expect(rt.terminate(child, { by: 'root' })).resolves.toBeUndefined();
    await rt.shutdown();
  });

  it('is off by default', async () => {
    const { rt, clock, ids } = await society({});
    clock.advance(24 * 3_600_000);
    await until(() => true, 'a sweep');
    expect(statuses(rt, ids)).toEqual(['active', 'active', 'active', 'active']);
    await rt.shutdown();
  });

  it('refuses a limit that is not a positive whole number of milliseconds, naming it', async () => {
    await expect(createRuntime({ model: new ScriptedModel([]), logger: new MemoryLogger(), reapIdleChildrenAfterMs: 0 })).rejects.toThrow(
      /reapIdleChildrenAfterMs/,
    );
  });
});

describe('reapIdleChildrenAfterMs on a quiet subtree', () => {
  it('lets the subtree go once, from its top', async () => {
    const { rt, clock, ids } = await society({ reapIdleChildrenAfterMs: 60_000 });
    const [, child = '', grandchild = ''] = ids;
    clock.advance(60_000);
    await until(() => rt.agent(grandchild)?.status === 'terminated', 'the subtree terminated');
    expect(statuses(rt, ids)).toEqual(['active', 'terminated', 'terminated', 'active']);
    expect(
      societyOf(rt)
        .terminations()
        .map((t) => [t.agentId, t.terminatedBy]),
    ).toEqual(
      expect.arrayContaining([
        [child, 'runtime'],
        [grandchild, child],
      ]),
    );
    await rt.shutdown();
  });
});

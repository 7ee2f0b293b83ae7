import { describe, expect, it } from 'vitest';
import { duringSpawn, quietRuntime, recordBus, until } from '../support/runtimeFixture.js';

describe('bounded mailbox', () => {
  it('rejects Tasks past mailboxLimit with mailbox_full and keeps the ones it accepted', async () => {
    // The agent is still spawning when the six arrive: three fit, three are refused. Then the
    // first turn's model call hangs, so the other two keep waiting.
    const { rt, logger } = await quietRuntime({ mailboxLimit: 3, steps: [{ hang: true }] });
    const seen = recordBus(rt);
    await rt.createRole({ name: 'worker', prompt: 'work' });
    const { agentId: worker, result: sending } = await duringSpawn(rt, { role: 'worker' }, (id) => {
      const sends = Array.from({ length: 6 }, (_, i) => rt.send(id, `job ${i}`));
      expect(rt.agent(id)?.state).toBe('spawning');
      return sends;
    });
    const sent = await Promise.all(sending);
    await until(() => rt.agent(worker)?.state === 'running.turn.thinking', 'the first turn');

    const rejected = seen.filter((task) => task.from === worker && task.status === 'rejected');
    expect(rejected.map((task) => task.id)).toEqual(sent.slice(3));
    expect(rejected.every((task) => task.error?.code === 'mailbox_full')).toBe(true);
    expect(rt.agent(worker)?.queued).toBe(2);
    expect(logger.entries.filter((entry) => entry.message === 'mailbox full: task rejected')).toHaveLength(3);

    // The accepted ones are still answered (canceled) when the agent is aborted.
    await rt.terminate(worker, { by: 'user', mode: 'abort' });
    const canceled = seen.filter((task) => task.from === worker && task.status === 'canceled').map((task) => task.id);
    expect(canceled.sort()).toEqual(sent.slice(0, 3).sort());
    await rt.shutdown();
  });
});

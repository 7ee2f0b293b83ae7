import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { TroupeError } from '../../src/errors.js';
import { Actions, createTask } from '../../src/task/index.js';
import { randomIds } from '../../src/ids.js';
import { duringSpawn, quietRuntime, recordBus, until } from '../support/runtimeFixture.js';

describe('bounded mailbox', () => {
  it('refuses the user past mailboxLimit at intake, rejects other senders past it with mailbox_full, and keeps the ones it accepted', async () => {
    // The agent is still spawning when the six arrive: the first will start its turn as soon as it
    // runs, so it does not count as waiting; three more fit and two are refused at intake (the user
    // hears no, and nothing is rejected later). Then the first turn's model call hangs, so the
    // other three keep waiting. All in one session, so they wait for its lane rather than taking
    // lanes of their own.
    const { rt, logger } = await quietRuntime({ mailboxLimit: 3, steps: [{ hang: true }] });
    const seen = recordBus(rt);
    await rt.createRole({ name: 'worker', prompt: 'work' });
    const { agentId: worker, result: sending } = await duringSpawn(rt, { role: 'worker' }, (id) => {
      const sends = Array.from({ length: 6 }, (_, i) => rt.send(id, `job ${i}`, { sessionId: 'jobs' }));
      expect(rt.agent(id)?.state).toBe('spawning');
      return sends;
    });
    const settled = await Promise.allSettled(sending);
    const sent = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(sent).toHaveLength(4);
    expect(settled.flatMap((result) => (result.status === 'rejected' ? [(result.reason as TroupeError).code] : []))).toEqual(['mailbox_full', 'mailbox_full']);
    await until(() => rt.agent(worker)?.state === 'running.turn.thinking', 'the first turn');
    expect(seen.filter((task) => task.status === 'rejected')).toEqual([]);

    // Another agent's Tasks have no intake to wait at: past the limit, the agent rejects them.
    const peerIds = { ids: randomIds, clock: systemClock };
    const fromPeer = Array.from({ length: 2 }, (_, i) =>
      createTask({ from: 'peer', to: worker, action: Actions.execute, sessionId: 'jobs', parameters: { text: `peer ${i}` } }, peerIds),
    );
    for (const task of fromPeer) rt.bus.publish(task);
    await until(() => seen.filter((task) => task.status === 'rejected').length === 2, 'the peer Tasks past the limit to be rejected');
    const rejected = seen.filter((task) => task.from === worker && task.status === 'rejected');
    expect(rejected.map((task) => [task.id, task.error?.code])).toEqual(fromPeer.map((task) => [task.id, 'mailbox_full']));
    expect(rt.agent(worker)?.queued).toBe(3);
    expect(logger.entries.filter((entry) => entry.message === 'mailbox full: task rejected')).toHaveLength(2);

    // The accepted ones are still answered (canceled) when the agent is aborted.
    await rt.terminate(worker, { by: 'user', mode: 'abort' });
    const canceled = seen.filter((task) => task.from === worker && task.status === 'canceled').map((task) => task.id);
    expect(canceled.sort()).toEqual([...sent].sort());
    await rt.shutdown();
  });
});

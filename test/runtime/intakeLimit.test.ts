import { describe, expect, it } from 'vitest';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { answers, quietRuntime, recordBus, rejectedCode, until } from '../support/runtimeFixture.js';

/** A temp data dir, removed after the test. */
const tempDir = tempDirsAfterEach('troupe-limits-');

describe('mailbox limit at intake', () => {
  it('refuses rt.submit past mailboxLimit with mailbox_full before anything is written', async () => {
    const { rt } = await quietRuntime({ mailboxLimit: 1, steps: [{ hang: true }] });
    // One session: the next Tasks wait behind its turn in progress rather than taking lanes of their own.
    const sessionId = await rt.submit('hang');
    await until(() => rt.agent('root')?.state === 'running.turn.thinking', 'the first turn');
    await rt.submit('waits', { sessionId });
    expect(await rejectedCode(rt.submit('one too many', { sessionId }))).toBe('mailbox_full');
    expect(rt.agent('root')?.queued).toBe(1);
    await rt.shutdown({ drainTimeoutMs: 0 });
  });

  it('a Task accepted before a restart is never rejected after it, even past a smaller mailboxLimit', async () => {
    const dir = await tempDir();
    const first = await quietRuntime({ dataDir: dir, steps: [{ hang: true }] });
    const ids: string[] = [await first.rt.submit('job 0')];
    // One session: the other five wait behind its hanging turn.
    for (let i = 1; i < 6; i++) ids.push(await first.rt.submit(`job ${i}`, { sessionId: ids[0] }));
    await first.rt.shutdown({ drainTimeoutMs: 0 });

    const second = await quietRuntime({ dataDir: dir, mailboxLimit: 2, steps: answers(6, 'done') });
    const seen = recordBus(second.rt);
    const finals = await Promise.all(ids.map((id) => second.rt.waitForAnswer(id, { timeoutMs: 10_000 })));
    expect(finals.map((task) => task.status)).toEqual(Array.from({ length: 6 }, () => 'completed'));
    expect(seen.filter((task) => task.status === 'rejected')).toEqual([]);
    await second.rt.shutdown();
  });
});

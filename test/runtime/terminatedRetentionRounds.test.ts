import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { TerminatedRetention, maxForgottenPerRound as full, retentionCheckEvery } from '../../src/runtime/journal/terminatedRetention.js';

// How retention rounds follow each other, against a journal whose `forgetRetired` answers from a
// script (the store's side is tested on real LMDB in test/org and test/runtime/terminatedRetention).

/** A journal that forgets `batches[i]` agents at its i-th call (then none), each call waiting for `gate` when given. */
function scriptedJournal(batches: readonly (number | Error)[], gate?: Promise<void>) {
  const calls: { max: number }[] = [];
  const erased: string[][] = [];
  return {
    calls,
    erased,
    forgetRetired: async (max: number, erase: (ids: readonly string[]) => Promise<void>): Promise<readonly string[]> => {
      const n = calls.length;
      calls.push({ max });
      await gate;
      const batch = batches[n] ?? 0;
      if (batch instanceof Error) throw batch;
      const ids = Array.from({ length: batch }, (_, i) => `a-${n}-${i}`);
      await erase(ids);
      erased.push(ids);
      return ids;
    },
  };
}

describe('TerminatedRetention', () => {
  it('checks every retentionCheckEvery terminations, and runs rounds until one forgets less than a full batch', async () => {
    const journal = scriptedJournal([full, full, 3]);
    const retention = new TerminatedRetention({ journal, erase: () => Promise.resolve(), logger: new MemoryLogger() });
    for (let i = 1; i < retentionCheckEvery; i++) retention.terminated();
    await retention.settled();
    expect(journal.calls).toEqual([]);
    retention.terminated();
    await retention.settled();
    expect(journal.calls).toEqual([{ max: full }, { max: full }, { max: full }]);
    expect(journal.erased.map((ids) => ids.length)).toEqual([full, full, 3]);
  });

  it('a check while a round runs starts one more after it, never two at once', async () => {
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const journal = scriptedJournal([1, 1], gate);
    const retention = new TerminatedRetention({ journal, erase: () => Promise.resolve(), logger: new MemoryLogger() });
    retention.check();
    retention.check();
    retention.check();
    expect(journal.calls).toHaveLength(1);
    open();
    await retention.settled();
    expect(journal.calls).toHaveLength(2);
  });

  it('a failed round is logged, and the next check tries again', async () => {
    const logger = new MemoryLogger();
    const journal = scriptedJournal([new Error('disk full'), 2]);
    const retention = new TerminatedRetention({ journal, erase: () => Promise.resolve(), logger });
    retention.check();
    await retention.settled();
    expect(logger.entries.map((entry) => [entry.message, entry.fields['error']])).toEqual([
      ['forgetting terminated agents failed; the next check retries', 'disk full'],
    ]);
    retention.check();
    await retention.settled();
    expect(journal.erased.map((ids) => ids.length)).toEqual([2]);
  });
});

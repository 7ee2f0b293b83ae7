import { describe, expect, it } from 'vitest';
import { type CompactionHelpers, extractiveHelpers } from '../../src/memory/index.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';

const minute = 60_000;

/** Helpers that say they are a model, writing `MODEL(n tasks)`. */
const modelLike: CompactionHelpers = {
  summarize: async (entries) => ({ text: `MODEL(${entries.length} tasks)`, source: 'model' }),
  extractFacts: async (summaries) => summaries.map((summary) => `fact of ${summary}`),
};

describe('compaction: L1 → L2 → L3', () => {
  it('moves L1’s overflow, oldest first: an important entry to L2, the others into an L3 summary', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 3 } });
    await memory.observe(memoryTask({ id: 'big', importance: 0.9 }));
    for (const id of ['small', 'c', 'd', 'e']) {
      clock.advance(minute);
      await memory.observe(memoryTask({ id, importance: 0.4 }));
    }
    const report = await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    expect(report).toEqual({ progress: true, reason: null, moved: { l1ToL2: 1, l1ToL3: 1, l2ToL3: 0, l3ToL4: 0 }, summaries: 1, facts: 0, due: false });
    expect(memory.l1().map((entry) => entry.task.id)).toEqual(['c', 'd', 'e']);
    expect(memory.l2().map((entry) => [entry.tier, entry.task.id])).toEqual([['L2', 'big']]);
    const [summary] = memory.l3();
    expect(summary).toMatchObject({ tier: 'L3', taskIds: ['small'], sessionId: 's1', source: 'extractive', importance: 0.4, createdAt: 1_000_000 + minute });
    expect(summary?.summary).toMatch(/^peer: Please look into item small/);
    expect(summary).not.toHaveProperty('task');
  });

  it('moves L1 entries past l1MaxAgeMs, those of one session into one summary', async () => {
    const { memory, clock } = await openMemory({ limits: { l1MaxAgeMs: 60 * minute } });
    await memory.observe(memoryTask({ id: 'a' }));
    await memory.observe(memoryTask({ id: 'b' }));
    clock.advance(60 * minute - 1);
    expect(memory.compactionDue(clock.now())).toBe(false);
    clock.advance(1);
    expect(memory.compactionDue(clock.now())).toBe(true);
    const report = await memory.compact(clock.now(), modelLike);
    expect(report.moved.l1ToL3).toBe(2);
    expect(memory.l3().map((entry) => [entry.taskIds, entry.summary, entry.source])).toEqual([[['a', 'b'], 'MODEL(2 tasks)', 'model']]);
  });

  it('keeps summaries within their session', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 1 } });
    for (const [id, sessionId] of [
      ['a1', 'A'],
      ['b1', 'B'],
      ['a2', 'A'],
      ['b2', 'B'],
      ['last', 'A'],
    ] as const) {
      await memory.observe(memoryTask({ id, sessionId }));
    }
    await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    expect(memory.l3().map((entry) => [entry.sessionId, entry.taskIds])).toEqual([
      ['A', ['a1', 'a2']],
      ['B', ['b1', 'b2']],
    ]);
    expect(memory.l3({ sessionId: 'B' }).map((entry) => entry.summary)).toEqual([expect.stringContaining('item b1')]);
  });

  it('moves L2’s overflow lowest effective importance first: a retrieved entry stays', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 1, l2Capacity: 2 } });
    for (const id of ['a', 'b', 'c']) {
      await memory.observe(memoryTask({ id, importance: 0.9 }));
      clock.advance(minute);
    }
    await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    expect(memory.l2().map((entry) => entry.task.id)).toEqual(['a', 'b']);
    await memory.noteRetrieved(memory.l2({ sessionId: 's1' }).slice(0, 1));
    expect(memory.l2()[0]).toMatchObject({ retrievals: 1, lastRetrievedAt: clock.now() });
    await memory.observe(memoryTask({ id: 'd', importance: 0.9 }));
    // c joins L2 (now over capacity), then b, the least important now, leaves it for L3.
    while (memory.compactionDue(clock.now())) await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    expect(memory.l2().map((entry) => entry.task.id)).toEqual(['a', 'c']);
    expect(memory.l3().map((entry) => entry.taskIds)).toEqual([['b']]);
  });

  it('does a bounded unit of work: at most entriesPerStep entries a call', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 2, entriesPerStep: 2 } });
    for (let i = 0; i < 8; i++) await memory.observe(memoryTask({ id: `t${i}` }));
    const moved: number[] = [];
    for (;;) {
      const report = await memory.compact(clock.now(), extractiveHelpers(memory.limits));
      moved.push(report.moved.l1ToL3);
      if (!report.due) break;
    }
    expect(moved).toEqual([2, 2, 2]);
    expect(memory.counts()).toMatchObject({ l1: 2, l3: 3 });
  });

  it('refuses a time that is not one', async () => {
    const { memory } = await openMemory();
    await memory.observe(memoryTask());
    expect(() => memory.compactionDue(Number.NaN)).toThrow('now: must be a time in milliseconds since the epoch, got NaN');
    await expect(memory.compact(-1, modelLike)).rejects.toThrow('now: must be a time in milliseconds since the epoch, got -1');
  });

  it('says when there is nothing to do, so the caller does not loop', async () => {
    const { memory, clock } = await openMemory();
    expect(await memory.compact(clock.now(), modelLike)).toMatchObject({ progress: false, reason: 'nothing is due', due: false });
    await memory.observe(memoryTask());
    expect(await memory.compact(clock.now(), modelLike)).toMatchObject({ progress: false, reason: 'nothing is due', due: false });
  });
});

describe('compaction: helpers that fail or misbehave', () => {
  it('a helper that throws stops the step with its reason, and nothing is lost or moved', async () => {
    const { memory, clock, logger } = await openMemory({ limits: { l1Capacity: 1 } });
    await memory.observe(memoryTask({ id: 'a' }));
    await memory.observe(memoryTask({ id: 'b' }));
    const failing: CompactionHelpers = { ...modelLike, summarize: () => Promise.reject(new Error('model unreachable')) };
    const report = await memory.compact(clock.now(), failing);
    expect(report).toMatchObject({ progress: false, reason: 'model unreachable', due: true });
    expect(memory.l1().map((entry) => entry.task.id)).toEqual(['a', 'b']);
    expect(logger.entries.map((entry) => entry.message)).toContain('a memory compaction step stopped short');
    expect((await memory.compact(clock.now(), extractiveHelpers(memory.limits))).progress).toBe(true);
    expect(memory.l3().map((entry) => entry.taskIds)).toEqual([['a']]);
  });

  it('a summary longer than summaryMaxChars is cut; an empty one is replaced by the extractive one', async () => {
    const { memory, clock, logger } = await openMemory({ limits: { l1Capacity: 1 } });
    const long: CompactionHelpers = { ...modelLike, summarize: async () => ({ text: 'word '.repeat(100), source: 'model' }) };
    for (const id of ['a', 'b']) await memory.observe(memoryTask({ id }));
    await memory.compact(clock.now(), long);
    const empty: CompactionHelpers = { ...modelLike, summarize: async () => ({ text: '  ', source: 'model' }) };
    await memory.observe(memoryTask({ id: 'c' }));
    await memory.compact(clock.now(), empty);
    const [cut, replaced] = memory.l3();
    expect(cut?.summary.length).toBeLessThanOrEqual(200);
    expect(cut).toMatchObject({ source: 'model', summary: expect.stringMatching(/^(word )+word…$/) as string });
    expect(replaced).toMatchObject({ source: 'extractive', taskIds: ['b'] });
    expect(logger.entries.map((entry) => entry.message)).toContain('summarize gave nothing usable; the extractive summary is used');
  });

  it('one step at a time: a call while a step runs makes no progress and says so', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 1 } });
    await memory.observe(memoryTask({ id: 'a' }));
    await memory.observe(memoryTask({ id: 'b' }));
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: CompactionHelpers = { ...modelLike, summarize: async (entries) => gate.then(() => ({ text: `slow ${entries.length}`, source: 'model' })) };
    const first = memory.compact(clock.now(), slow);
    expect(await memory.compact(clock.now(), slow)).toMatchObject({ progress: false, reason: 'a compaction step of this memory is already running' });
    // Observing goes on while the step waits for its helper.
    expect(await memory.observe(memoryTask({ id: 'c' }))).toBe('kept');
    release();
    expect((await first).moved.l1ToL3).toBe(1);
    expect(memory.l1().map((entry) => entry.task.id)).toEqual(['b', 'c']);
  });
});

import { describe, expect, it } from 'vitest';
import type { SummaryEntry, TaskEntry } from '../../src/memory/index.js';
import { memoryLimits } from '../../src/memory/limits.js';
import { type Move, planStep } from '../../src/memory/promotion.js';
import { Tiers } from '../../src/memory/tiers.js';
import { memoryTask } from '../support/memoryFixture.js';

const hour = 3_600_000;
let seq = 0;

function taskEntry(init: { tier?: 'L1' | 'L2'; sessionId?: string; importance?: number; forL2?: boolean; retrievals?: number; createdAt?: number }): TaskEntry {
  const sessionId = init.sessionId ?? 's1';
  const task = memoryTask({ sessionId });
  const importance = init.importance ?? 0.4;
  return {
    v: 1,
    seq: seq++,
    tier: init.tier ?? 'L1',
    task,
    sessionId,
    importance,
    retrievals: init.retrievals ?? 0,
    createdAt: init.createdAt ?? seq,
    lastRetrievedAt: null,
    forL2: init.forL2 ?? importance > 0.6,
  };
}

function summaryEntry(init: { sessionId?: string; importance?: number; createdAt?: number } = {}): SummaryEntry {
  return {
    v: 1,
    seq: seq++,
    tier: 'L3',
    summary: 'peer: something happened.',
    taskIds: [`x${seq}`],
    source: 'extractive',
    sessionId: init.sessionId ?? 's1',
    importance: init.importance ?? 0.4,
    retrievals: 0,
    createdAt: init.createdAt ?? seq,
    lastRetrievedAt: null,
  };
}

const shape = (moves: readonly Move[]): string[] =>
  moves.map((move) =>
    move.kind === 'toL2' ? 'toL2' : `${move.kind}${move.kind === 'toL3' ? ` from ${move.from}` : ''} ${move.sessionId}×${move.entries.length}`,
  );

describe('planStep', () => {
  it('plans the highest tier first, each batch within one session', () => {
    const limits = memoryLimits({ l1Capacity: 1, l2Capacity: 1, l3Capacity: 1 });
    const tiers = Tiers.of([
      summaryEntry({ importance: 0.2 }),
      summaryEntry({ importance: 0.9 }),
      taskEntry({ tier: 'L2', importance: 0.7 }),
      taskEntry({ tier: 'L2', importance: 0.9 }),
      taskEntry({ sessionId: 'A' }),
      taskEntry({ sessionId: 'B', importance: 0.9 }),
      taskEntry({ sessionId: 'A' }),
      taskEntry({ sessionId: 'B' }),
    ]);
    expect(shape(planStep(tiers, 100, limits).moves)).toEqual(['toL4 s1×1', 'toL3 from L2 s1×1', 'toL2', 'toL3 from L1 A×2']);
  });

  it('sends the least important L3 summaries over capacity to L4, ties oldest first, as a sort of the whole tier would', () => {
    const limits = memoryLimits({ l3Capacity: 20, entriesPerStep: 100 });
    const summaries = Array.from({ length: 27 }, (_, i) => summaryEntry({ importance: [0.3, 0.5, 0.3, 0.7, 0.5][i % 5] ?? 0.3, createdAt: i }));
    const expected = [...summaries]
      .sort((a, b) => a.importance - b.importance || a.createdAt - b.createdAt)
      .slice(0, 7)
      .map((entry) => entry.seq);
    const moved = planStep(Tiers.of(summaries), 100, limits).moves.flatMap((move) => (move.kind === 'toL4' ? move.entries.map((entry) => entry.seq) : []));
    expect(moved).toEqual(expected);
  });

  it('sends an entry whose retrievals made it important to L2, and a marked one past l2MaxAgeMs to L3', () => {
    const limits = memoryLimits({ l1Capacity: 1, l1MaxAgeMs: hour, l2MaxAgeMs: 2 * hour, retrievalBoost: 0.1 });
    const retrieved = taskEntry({ importance: 0.5, retrievals: 2, createdAt: 0 });
    const stale = taskEntry({ importance: 0.9, createdAt: -3 * hour });
    const plan = planStep(Tiers.of([stale, retrieved, taskEntry({ createdAt: 10 })]), hour, limits);
    expect(plan.moves.map((move) => [move.kind, move.kind === 'toL2' ? move.entry.seq : move.entries.map((entry) => entry.seq)])).toEqual([
      ['toL2', retrieved.seq],
      ['toL3', [stale.seq]],
    ]);
  });

  it('sends important entries to L3 once L2 is at its hard bound', () => {
    const limits = memoryLimits({ l1Capacity: 1, l2Capacity: 1, maxBacklog: 1 });
    const tiers = Tiers.of([taskEntry({ tier: 'L2', importance: 0.9 }), ...[1, 2, 3, 4].map(() => taskEntry({ importance: 0.9 }))]);
    // L2 holds 1; the first important entry takes it to 2 (l2Capacity + maxBacklog), the next two go to L3.
    expect(shape(planStep(tiers, 100, limits).moves)).toEqual(['toL2', 'toL3 from L1 s1×2']);
  });

  it('plans no move into L3 at its hard bound, and says so', () => {
    const limits = memoryLimits({ l1Capacity: 1, l3Capacity: 2, maxBacklog: 1, entriesPerStep: 3 });
    const tiers = Tiers.of([
      summaryEntry(),
      summaryEntry(),
      summaryEntry(),
      taskEntry({ sessionId: 'A' }),
      taskEntry({ sessionId: 'B' }),
      taskEntry({ sessionId: 'C' }),
    ]);
    const plan = planStep(tiers, 100, limits);
    expect(shape(plan.moves)).toEqual(['toL4 s1×1', 'toL3 from L1 A×1']);
    expect(plan.blocked).toBe('L3 holds 3 summaries, its hard bound (l3Capacity + maxBacklog): L1 cannot move into it');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type CompactionHelpers, effectiveImportance, extractiveHelpers } from '../../src/memory/index.js';
import type { SimulatedClock } from '../../src/simulatedClock.js';
import type { FactStoreDouble } from '../support/factStoreDouble.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';
import { type TierRank, holdings } from '../support/memoryHolders.js';
import { type Op, opArb, settle } from './memoryOps.js';

// Issue 14's tier invariants, over random histories of observes, time passing, compaction
// (bounded steps, full settling, failing helpers) and retrievals.

const limits = {
  l1Capacity: 4,
  l2Capacity: 3,
  l3Capacity: 5,
  maxBacklog: 3,
  entriesPerStep: 3,
  l1MaxAgeMs: 3_600_000,
  l2MaxAgeMs: 86_400_000,
  l3MaxAgeMs: 604_800_000,
};

interface World {
  readonly memory: AgentMemory;
  readonly clock: SimulatedClock;
  readonly facts: FactStoreDouble;
  /** Session of every Task observed and kept. */
  readonly kept: Map<string, string>;
  /** Highest tier each kept Task has been seen in. */
  readonly seen: Map<string, TierRank>;
}

const failing: CompactionHelpers = { summarize: () => Promise.reject(new Error('model down')), extractFacts: () => Promise.reject(new Error('model down')) };

async function apply(world: World, op: Op, index: number): Promise<void> {
  const { memory, clock } = world;
  switch (op.kind) {
    case 'observe': {
      const id = `t${index}`;
      const task = memoryTask({
        id,
        sessionId: `s${op.session}`,
        text: op.text,
        ...(op.importance === null ? {} : { importance: op.importance }),
        ...(op.sent ? { from: 'agent', to: 'peer' } : {}),
      });
      if ((await memory.observe(task)) === 'kept') world.kept.set(id, task.sessionId);
      return;
    }
    case 'advance':
      clock.advance(op.ms);
      return;
    case 'step':
      await memory.compact(clock.now(), op.failing ? failing : extractiveHelpers(memory.limits));
      return;
    case 'settle':
      await settle(memory, clock);
      checkSettled(world);
      return;
    case 'retrieve': {
      const entries = [...memory.l1(), ...memory.l2(), ...memory.l3()].filter((_, i) => op.picks.includes(i % 5));
      const before = entries.map((entry) => effectiveImportance(entry, clock.now(), memory.limits));
      await memory.noteRetrieved(entries);
      const after = new Map([...memory.l1(), ...memory.l2(), ...memory.l3()].map((entry) => [entry.seq, entry]));
      entries.forEach((entry, i) => {
        const now = after.get(entry.seq);
        expect(now?.retrievals).toBe(entry.retrievals + 1);
        expect(effectiveImportance(now ?? entry, clock.now(), memory.limits)).toBeGreaterThanOrEqual(before[i] ?? 1);
      });
      return;
    }
    default:
      return op satisfies never;
  }
}

/** After compaction has run while due: every tier within capacity and age. */
function checkSettled({ memory, clock }: World): void {
  const now = clock.now();
  expect(memory.compactionDue(now)).toBe(false);
  const { l1Capacity, l2Capacity, l3Capacity, l1MaxAgeMs, l2MaxAgeMs, l3MaxAgeMs } = memory.limits;
  expect(memory.l1().length).toBeLessThanOrEqual(l1Capacity);
  expect(memory.l2().length).toBeLessThanOrEqual(l2Capacity);
  expect(memory.l3().length).toBeLessThanOrEqual(l3Capacity);
  expect(memory.l1().every((entry) => entry.createdAt + l1MaxAgeMs > now)).toBe(true);
  expect(memory.l2().every((entry) => entry.createdAt + l2MaxAgeMs > now)).toBe(true);
  expect(memory.l3().every((entry) => entry.createdAt + l3MaxAgeMs > now)).toBe(true);
}

/** The invariants that hold after every operation. */
function checkAlways(world: World): void {
  const { memory } = world;
  const { l1Capacity, l2Capacity, l3Capacity, maxBacklog } = memory.limits;
  expect(memory.l1().length).toBeLessThanOrEqual(l1Capacity + maxBacklog);
  expect(memory.l2().length).toBeLessThanOrEqual(l2Capacity + maxBacklog);
  expect(memory.l3().length).toBeLessThanOrEqual(l3Capacity + maxBacklog);
  // Nothing full-size in L3 or L4.
  for (const entry of memory.l3()) {
    expect(entry).not.toHaveProperty('task');
    expect(entry.summary.length).toBeLessThanOrEqual(200);
  }
  for (const fact of world.facts.facts) {
    expect(fact.text.length).toBeLessThanOrEqual(500);
    expect(Object.keys(fact.metadata ?? {}).sort()).toEqual(['part', 'promotionId', 'taskIds']);
    expect(fact).toMatchObject({ scope: 'session' });
  }
  const now = holdings(memory, world.facts);
  // The FactStore never fails here, so no facts are left waiting between steps.
  expect(memory.counts().pendingFacts).toBe(0);
  for (const id of world.kept.keys()) {
    const at = now.get(id);
    expect(at, `task ${id} is nowhere`).toBeDefined();
    expect(at?.places, `task ${id} is held twice`).toBe(1);
    // One direction only: L1 → L2 → L3 → L4, never back.
    expect(at?.rank, `task ${id} moved back`).toBeGreaterThanOrEqual(world.seen.get(id) ?? 1);
    world.seen.set(id, at?.rank ?? 1);
  }
  checkSessions(world);
}

/** Session isolation: a filter returns only its session, and every summary and fact stays within one. */
function checkSessions(world: World): void {
  const { memory } = world;
  for (const session of ['s0', 's1', 's2']) {
    for (const entry of [...memory.l1({ sessionId: session }), ...memory.l2({ sessionId: session }), ...memory.l3({ sessionId: session })]) {
      expect(entry.sessionId).toBe(session);
    }
  }
  for (const entry of memory.l3()) for (const id of entry.taskIds) expect(world.kept.get(id)).toBe(entry.sessionId);
  for (const fact of world.facts.facts) for (const id of (fact.metadata as { taskIds: string[] }).taskIds) expect(world.kept.get(id)).toBe(fact.sessionId);
}

describe('memory tiers (properties)', () => {
  it('hold their capacities, move one way, keep nothing full-size above L2, lose and duplicate nothing, keep sessions apart', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const { memory, clock, facts } = await openMemory({ limits });
        const world: World = { memory, clock, facts, kept: new Map(), seen: new Map() };
        for (const [i, op] of ops.entries()) {
          await apply(world, op, i);
          checkAlways(world);
        }
        await settle(memory, clock);
        checkSettled(world);
        checkAlways(world);
      }),
      loggedSeed('memory tier invariants'),
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { ValidationError } from '../../../src/errors.js';
import type { AgentMemory } from '../../../src/memory/index.js';
import { ModelCallLimiter } from '../../../src/runtime/limits/modelCallLimiter.js';
import { limitedModel, unqueuedModel } from '../../../src/runtime/limits/limitedModel.js';
import { startCompactor } from '../../../src/runtime/memory/compactor/compactor.js';
import { compactorHarness, recordBatches, untilIdle } from '../../support/compactorFixture.js';
import { HeldModel } from '../../support/heldModel.js';
import { memoryTask } from '../../support/memoryFixture.js';

// The memory compactor's actor over real memories (AgentMemory + FactStore with its hnswlib index
// on a temp LMDB env), on a simulated clock: what its batches move, how many run at once, and how
// it stops. Every wait is on the actor's snapshots or the held model's calls, never on a timer.

const world = compactorHarness();

// Things the Tasks are about, far enough apart that their facts never merge as near-duplicates.
const topics = [
  'Alice booked the dentist for Tuesday at nine.',
  'The invoice from Rossi Ltd is 4,200 euros, due in March.',
  'Bob prefers green tea without sugar.',
  'The staging server runs Postgres 16 on port 5433.',
  'Our cat Miso needs her vaccine renewed in June.',
  'The flight to Oslo leaves gate B12 at 7:40.',
  'Carla wrote the migration guide for version three.',
  'The warehouse in Lyon closes early on Fridays.',
  'Dmitri asked for the quarterly numbers by email.',
  'The roof leak is above the second bedroom window.',
  'Eve plays cello in the city orchestra on Sundays.',
  'The library card expires on the first of August.',
];

/**
 * Observes `count` Tasks addressed to the memory's agent, spread over `sessions` sessions (1 by
 * default: each session's entries make summaries of their own); every `importantEvery`-th
 * important (0.9: marked for L2).
 */
async function feed(memory: AgentMemory, count: number, options: { importantEvery?: number; sessions?: number } = {}): Promise<void> {
  for (let i = 0; i < count; i++) {
    const important = options.importantEvery !== undefined && i % options.importantEvery === 0;
    const text = topics[i % topics.length] ?? '';
    const sessionId = `s${i % (options.sessions ?? 1)}`;
    await memory.observe(memoryTask({ id: `${memory.agentId}-t${i}`, to: memory.agentId, sessionId, text, importance: important ? 0.9 : 0.4 }));
  }
}

const small = { l1Capacity: 2, l2Capacity: 1, l3Capacity: 1, entriesPerStep: 2 };

describe('the memory compactor', () => {
  it('promotes L1 → L2 → L3 → L4 in batches from one memory.due until nothing is due, and shows in the inspector', async () => {
    const { open, start, clock } = await world();
    const memory = await open('a1', { limits: small });
    await feed(memory, 12, { importantEvery: 3, sessions: 3 });
    const inspected: InspectionEvent[] = [];
    const compactor = start({ inspect: (event) => inspected.push(event) });
    const batches = recordBatches(compactor);
    compactor.due('a1');
    await untilIdle(compactor);
    expect(memory.compactionDue(clock.now())).toBe(false);
    expect(memory.counts()).toMatchObject({ l1: 2, l2: 1, l3: 1, pendingFacts: 0 });
    expect(memory.counts().l4).toBeGreaterThan(0);
    // One memory.due, several bounded steps: the agent went back in the queue while it made progress.
    expect(batches.length).toBeGreaterThan(2);
    expect(batches.every((batch) => batch.length === 1 && batch[0] === 'a1')).toBe(true);
    const compacting = inspected.filter(
      (event) => event.type === '@xstate.snapshot' && event.actorRef === compactor.actor && event.snapshot.status === 'active',
    );
    expect(compacting.some((event) => event.type === '@xstate.snapshot' && (event.snapshot as unknown as { value: unknown }).value === 'compacting')).toBe(
      true,
    );
    expect(compactor.actor.id).toBe('memoryCompactor');
  });

  it('compacts at most compactionConcurrency memories at once, and its model calls wait for the society’s slots', async () => {
    const { open, start, calls, memories, clock } = await world();
    for (const agentId of ['a1', 'a2', 'a3', 'a4', 'a5']) await feed(await open(agentId, { limits: { l1Capacity: 1 } }), 3);
    const held = new HeldModel();
    const limiter = new ModelCallLimiter({ maxConcurrent: 1, maxQueued: 100 });
    const compactor = start({ model: limitedModel(held, limiter), options: { compactionConcurrency: 2 } });
    for (const agentId of memories.keys()) compactor.due(agentId);
    await held.untilHolding(1);
    // Two compactions in flight, but one model call: the other waits for the limiter's only slot.
    expect(calls.inFlight).toBe(2);
    expect(limiter.queued).toBe(1);
    held.release();
    await untilIdle(compactor);
    expect(calls.maxInFlight).toBe(2);
    for (const memory of memories.values()) expect(memory.compactionDue(clock.now())).toBe(false);
    expect([...memories.values()].map((memory) => memory.l3()[0]?.source)).toEqual(['model', 'model', 'model', 'model', 'model']);
  });

  it("never waits behind turns for a model slot: with none free, a compaction's summaries are extractive at once", async () => {
    const { open, start, memories, clock } = await world();
    for (const agentId of ['a1', 'a2']) await feed(await open(agentId, { limits: { l1Capacity: 1 } }), 3);
    const held = new HeldModel();
    const limiter = new ModelCallLimiter({ maxConcurrent: 1, maxQueued: 100 });
    // A turn holds the only slot and another waits for it: the society's model is saturated.
    const turn = await limiter.acquire();
    const waiting = limiter.acquire();
    const compactor = start({ model: unqueuedModel(held, limiter), options: { compactionConcurrency: 2 } });
    for (const agentId of memories.keys()) compactor.due(agentId);
    await untilIdle(compactor);
    expect(held.holding).toBe(0);
    expect([limiter.running, limiter.queued]).toEqual([1, 1]);
    for (const memory of memories.values()) expect(memory.compactionDue(clock.now())).toBe(false);
    expect([...memories.values()].flatMap((memory) => memory.l3().map((summary) => summary.source))).toEqual(['extractive', 'extractive']);
    turn();
    (await waiting)();
  });

  it('does not retry a memory that cannot shrink: it comes back only with its next memory.due', async () => {
    const { open, start, calls, logger, clock } = await world();
    // L4 holds one fact at most and no add may wait for room: promoting L3 fails with memory_full, so compaction cannot finish.
    const memory = await open('a1', { limits: { l1Capacity: 1, l3Capacity: 1 }, factLimits: { compressAbove: 1, keepTopN: 1, maxWaitingAdds: 0 } });
    await feed(memory, 8, { sessions: 4 });
    const compactor = start();
    compactor.due('a1');
    await untilIdle(compactor);
    expect(memory.compactionDue(clock.now())).toBe(true);
    const first = calls.of('a1');
    expect(first).toBeLessThan(10);
    expect(logger.entries.some((entry) => entry.level === 'debug' && /made no progress/.test(entry.message) && entry.fields['agentId'] === 'a1')).toBe(true);
    compactor.due('a1');
    await untilIdle(compactor);
    expect(calls.of('a1')).toBe(first + 1);
    expect(compactor.actor.getSnapshot().value).toBe('running');
  });

  it('drains: the batch in progress finishes, the queue is dropped, and the actor terminates', async () => {
    const { open, start } = await world();
    const busy = await open('a1', { limits: { l1Capacity: 1 } });
    const waiting = await open('a2', { limits: { l1Capacity: 1 } });
    await feed(busy, 2);
    await feed(waiting, 2);
    const held = new HeldModel();
    const compactor = start({ model: held, options: { compactionConcurrency: 1 } });
    compactor.due('a1');
    compactor.due('a2');
    await held.untilHolding(1);
    const drained = compactor.drain();
    expect(compactor.actor.getSnapshot()).toMatchObject({ value: 'compacting', context: { draining: true, queue: ['a2'] } });
    held.release();
    await drained;
    expect(compactor.actor.getSnapshot()).toMatchObject({ status: 'done', value: 'terminated', context: { queue: [] } });
    expect(busy.l3().map((entry) => entry.source)).toEqual(['model']);
    expect(waiting.counts().l3).toBe(0);
    // Late news is ignored, not an error.
    compactor.due('a2');
    await compactor.drain();
  });

  it('skips a memory closed during its batch or before it, and an agent without one, without an error', async () => {
    const { open, start, memories, logger, clock } = await world();
    for (const agentId of ['a1', 'a2', 'a3']) await feed(await open(agentId, { limits: { l1Capacity: 1 } }), 3);
    const held = new HeldModel();
    const compactor = start({ model: held, options: { compactionConcurrency: 2 } });
    const batches = recordBatches(compactor);
    for (const agentId of ['a1', 'a2', 'a3', 'gone']) compactor.due(agentId);
    await held.untilHolding(2);
    // a1 is terminated while its summary is being written; a3, still queued, before its batch.
    const closing = ['a1', 'a3'].map((agentId) => memories.get(agentId)?.close());
    held.release();
    for (const closed of closing) await closed;
    await untilIdle(compactor);
    expect(batches).toEqual([
      ['a1', 'a2'],
      ['a3', 'gone'],
    ]);
    expect(memories.get('a2')?.compactionDue(clock.now())).toBe(false);
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    expect(compactor.actor.getSnapshot().value).toBe('running');
  });

  it('sweeps the memories open when it starts and queues those with work', async () => {
    const { open, start, calls, clock } = await world();
    const due = await open('a1', { limits: small });
    await feed(due, 6);
    await feed(await open('a2', { limits: small }), 1);
    const compactor = start();
    await untilIdle(compactor);
    expect(due.compactionDue(clock.now())).toBe(false);
    expect(calls.of('a1')).toBeGreaterThan(0);
    expect(calls.of('a2')).toBe(0);
  });

  it('sweeps every compactionSweepMs for memories whose entries only aged, so an idle agent is compacted without a new Task', async () => {
    const { open, start, calls, clock } = await world();
    const idle = await open('a1', { limits: { l1MaxAgeMs: 10_000 } });
    await feed(idle, 2);
    const compactor = start({ options: { compactionSweepMs: 60_000 } });
    await untilIdle(compactor);
    expect(calls.of('a1')).toBe(0);
    // Aged past L1's bound, but nothing has looked yet: no Task came, and the sweep is not due.
    clock.advance(30_000);
    expect(idle.compactionDue(clock.now())).toBe(true);
    await untilIdle(compactor);
    expect(calls.of('a1')).toBe(0);
    clock.advance(30_000);
    await untilIdle(compactor);
    expect(calls.of('a1')).toBeGreaterThan(0);
    expect(idle.compactionDue(clock.now())).toBe(false);
    expect(idle.l1()).toEqual([]);
    // The sweep re-arms, and stops with the compactor.
    expect(clock.pending).toBeGreaterThan(0);
    await compactor.drain();
    expect(clock.pending).toBe(0);
  });

  it('refuses a bad option or agent id, naming it', async () => {
    const { start, clock, logger } = await world();
    const none = { memoryOf: () => undefined, liveMemories: () => [], model: null, clock, logger };
    expect(() => startCompactor({ ...none, options: { compactionConcurrency: 0 } })).toThrow(ValidationError);
    expect(() => startCompactor({ ...none, options: { compactionModelTimeoutMs: -1 } })).toThrow(/compactionModelTimeoutMs/);
    expect(() => start().due('')).toThrow(/agentId/);
  });
});

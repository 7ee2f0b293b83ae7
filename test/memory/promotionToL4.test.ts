import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { type AgentMemory, type CompactionHelpers, extractiveHelpers, helpersWithFallback } from '../../src/memory/index.js';
import type { SimulatedClock } from '../../src/simulatedClock.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';

const day = 86_400_000;

/** Compacts until nothing is due or a step makes no progress, as the memory compactor does. */
async function settle(memory: AgentMemory, clock: SimulatedClock, helpers: CompactionHelpers): Promise<void> {
  while (memory.compactionDue(clock.now())) {
    const report = await memory.compact(clock.now(), helpers);
    if (!report.progress) break;
  }
}

/** Observes Tasks `ids` (in `sessionId`), compacting after each. */
async function feed(memory: AgentMemory, clock: SimulatedClock, ids: readonly string[], sessionId = 's1', helpers?: CompactionHelpers): Promise<void> {
  const using = helpers ?? extractiveHelpers(memory.limits);
  for (const id of ids) {
    await memory.observe(memoryTask({ id, sessionId, text: `Item ${id} is stored in room ${id.toUpperCase()}. It weighs ${id.length} kg.` }));
    clock.advance(1_000);
    await settle(memory, clock, using);
  }
  await settle(memory, clock, using);
}

describe('compaction: L3 → L4', () => {
  it('moves L3’s overflow into L4 as session facts, and the summaries leave L3', async () => {
    const { memory, clock, facts } = await openMemory({ limits: { l1Capacity: 1, l3Capacity: 1 } });
    await feed(memory, clock, ['a', 'b', 'c']);
    expect(memory.counts()).toMatchObject({ l1: 1, l3: 1, pendingFacts: 0 });
    expect(facts.facts.length).toBeGreaterThan(0);
    for (const fact of facts.facts) {
      expect(fact).toMatchObject({ scope: 'session', sessionId: 's1', metadata: { part: expect.any(Number) as number, taskIds: ['a'] } });
      expect(fact.text.length).toBeLessThanOrEqual(500);
      expect(fact.importance).toBeGreaterThan(0);
    }
    expect(facts.facts.map((fact) => fact.text).join(' ')).toMatch(/Item a is stored in room A/);
  });

  it('moves summaries past l3MaxAgeMs, and facts keep the session they came from', async () => {
    const { memory, clock, facts } = await openMemory({ limits: { l1Capacity: 1 } });
    await feed(memory, clock, ['a1', 'a2'], 'A');
    await feed(memory, clock, ['b1', 'b2'], 'B');
    expect(memory.counts()).toMatchObject({ l3: 3 });
    clock.advance(7 * day);
    await feed(memory, clock, []);
    expect(memory.counts()).toMatchObject({ l1: 0, l3: 0, pendingFacts: 0 });
    // By the Tasks each fact came from (its promotion id is random hex, which may start with a or b too).
    const taskIdsOf = (metadata: unknown): readonly unknown[] => ((metadata ?? {}) as { taskIds?: unknown[] }).taskIds ?? [];
    const sessionsOf = (taskPrefix: string): Set<unknown> =>
      new Set(facts.facts.filter((fact) => taskIdsOf(fact.metadata).some((id) => String(id).startsWith(taskPrefix))).map((fact) => fact.sessionId));
    expect(sessionsOf('a')).toEqual(new Set(['A']));
    expect(sessionsOf('b')).toEqual(new Set(['B']));
  });

  it('bounds what a helper returns: at most maxFactsPerBatch, each at most factMaxChars, no repeats; nothing usable → extractive facts', async () => {
    const chatty: CompactionHelpers = {
      ...extractiveHelpers({ summaryMaxChars: 200, maxFactsPerBatch: 3, factMaxChars: 40 }),
      extractFacts: async () => ['x'.repeat(90), 'dup', 'dup', 'one', 'two', 'three'],
    };
    const { memory, clock, facts, logger } = await openMemory({ limits: { l1Capacity: 1, l3Capacity: 1, maxFactsPerBatch: 3, factMaxChars: 40 } });
    await feed(memory, clock, ['a', 'b', 'c'], 's1', chatty);
    expect(facts.facts.map((fact) => fact.text)).toEqual([`${'x'.repeat(39)}…`, 'dup', 'one']);
    expect(logger.entries.map((entry) => entry.message)).toContain('kept the first maxFactsPerBatch facts of a batch of summaries');
    const silent: CompactionHelpers = { ...chatty, extractFacts: async () => ['   '] };
    await feed(memory, clock, ['d'], 's1', silent);
    expect(facts.facts.slice(3).map((fact) => fact.text)).toEqual(['peer: Item b is stored in room B.', 'peer: It weighs 1 kg.']);
  });

  it('a FactStore that fails mid-way leaves the rest pending; the next step adds only what is missing', async () => {
    const { memory, clock, facts } = await openMemory({ limits: { l1Capacity: 1, l3Capacity: 1 } });
    const three: CompactionHelpers = { ...extractiveHelpers(memory.limits), extractFacts: async () => ['first fact', 'second fact', 'third fact'] };
    facts.failAfter = 1;
    await feed(memory, clock, ['a', 'b', 'c'], 's1', three);
    expect(memory.counts()).toMatchObject({ l3: 1, pendingFacts: 1 });
    expect(facts.facts.map((fact) => fact.text)).toEqual(['first fact']);
    const stuck = await memory.compact(clock.now(), three);
    expect(stuck).toMatchObject({ progress: false, reason: 'the fact store failed (test)', due: true });
    facts.failAfter = null;
    const report = await memory.compact(clock.now(), three);
    expect(report).toMatchObject({ progress: true, facts: 2, due: false });
    expect(facts.facts.map((fact) => [fact.text, (fact.metadata as { part: number }).part])).toEqual([
      ['first fact', 0],
      ['second fact', 1],
      ['third fact', 2],
    ]);
    expect(memory.counts().pendingFacts).toBe(0);
  });
});

describe('helpersWithFallback', () => {
  const bounds = { summaryMaxChars: 200, maxFactsPerBatch: 8, factMaxChars: 500 };

  it('uses the model when it answers, and says so', async () => {
    const logger = new MemoryLogger();
    const helpers = helpersWithFallback(
      { summarize: async (tasks) => `${tasks.length} tasks about trams`, extractFacts: async () => [' trams are old '] },
      { bounds, logger },
    );
    const { memory } = await openMemory();
    await memory.observe(memoryTask({ id: 'a' }));
    expect(await helpers.summarize(memory.l1())).toEqual({ text: '1 tasks about trams', source: 'model' });
    expect(await helpers.extractFacts(['x'])).toEqual(['trams are old']);
    expect(logger.entries).toEqual([]);
  });

  it('falls back to the extractive helpers when the model fails or says nothing, with a warning', async () => {
    const logger = new MemoryLogger();
    const helpers = helpersWithFallback({ summarize: () => Promise.reject(new Error('HTTP 500')), extractFacts: async () => [] }, { bounds, logger });
    const { memory } = await openMemory();
    await memory.observe(memoryTask({ id: 'a', text: 'Trams in Lisbon are old.' }));
    expect(await helpers.summarize(memory.l1())).toEqual({ text: 'peer: Trams in Lisbon are old.', source: 'extractive' });
    expect(await helpers.extractFacts(['root: Trams in Lisbon are old.'])).toEqual(['root: Trams in Lisbon are old.']);
    expect(logger.entries.map((entry) => [entry.level, entry.message, entry.fields['error']])).toEqual([
      ['warn', 'the model could not summarise; the extractive summary is used', 'HTTP 500'],
      ['warn', 'the model extracted no fact; the extractive facts are used', undefined],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { RootDatabase } from 'lmdb';
import { type AgentMemory, type CompactionHelpers, entriesDbName, extractiveHelpers } from '../../src/memory/index.js';
import type { SimulatedClock } from '../../src/simulatedClock.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { envHarness, memoryTask, openMemory } from '../support/memoryFixture.js';

const { tempEnv, reopen } = envHarness();
const limits = { l1Capacity: 2, l2Capacity: 1, l3Capacity: 2 };

/** Everything an agent's memory holds, as plain data. */
function tiersOf(memory: AgentMemory): unknown {
  return { l1: memory.l1(), l2: memory.l2(), l3: memory.l3(), counts: memory.counts() };
}

/** Fills every tier of `agentId`'s memory: Tasks of two sessions, some important, one retrieved, compacted as they come. */
async function fill(memory: AgentMemory, clock: SimulatedClock): Promise<void> {
  for (let i = 0; i < 9; i++) {
    await memory.observe(
      memoryTask({ id: `${memory.agentId}-t${i}`, to: memory.agentId, sessionId: i % 2 === 0 ? 'A' : 'B', importance: i % 3 === 0 ? 0.9 : 0.3 }),
    );
    clock.advance(60_000);
    if (i === 4) await memory.noteRetrieved(memory.l1().slice(0, 1));
    while (memory.compactionDue(clock.now())) await memory.compact(clock.now(), extractiveHelpers(memory.limits));
  }
}

describe('memory persistence', () => {
  it('close and reopen give back the same tiers, for each agent of the environment', async () => {
    const { dir, env } = await tempEnv();
    const before: Record<string, unknown> = {};
    for (const agentId of ['alpha', 'beta']) {
      const { memory, clock } = await openMemory({ agentId, db: env, limits });
      await fill(memory, clock);
      before[agentId] = tiersOf(memory);
      expect(memory.counts()).toMatchObject({ l1: 2, l2: 1, l3: 2 });
      await memory.close();
    }
    await env.close();
    const again = reopen(dir);
    for (const agentId of ['alpha', 'beta']) {
      const { memory } = await openMemory({ agentId, db: again, limits });
      expect(tiersOf(memory)).toEqual(before[agentId]);
      expect(memory.l1().every((entry) => entry.task.id.startsWith(`${agentId}-`))).toBe(true);
    }
  });

  it('a new agent in an environment with others starts empty', async () => {
    const { env } = await tempEnv();
    const { memory, clock } = await openMemory({ agentId: 'alpha', db: env, limits });
    await fill(memory, clock);
    const { memory: fresh } = await openMemory({ agentId: 'alph', db: env, limits });
    expect(fresh.counts()).toEqual({ l1: 0, l2: 0, l3: 0, l4: 0, pendingFacts: 0, refused: 0 });
  });

  it('skips a record that fails its schema or does not decode, with an error naming the sub-db and key, and never overwrites it', async () => {
    const { dir, env } = await tempEnv();
    const { memory } = await openMemory({ agentId: 'alpha', db: env });
    await memory.observe(memoryTask({ id: 'good', to: 'alpha' }));
    await memory.close();
    const raw = env.openDB<unknown>({ name: entriesDbName });
    await raw.put(['alpha', 7], { v: 1, tier: 'L3', summary: 'x'.repeat(201), taskIds: ['t'], source: 'model' });
    await env.openDB({ name: entriesDbName, encoding: 'binary' }).put(['alpha', 8], Buffer.from([0xde, 0xff, 0xff]) /* a map of 65,535 entries, cut short */);
    await env.close();

    const again = reopen(dir);
    const { memory: reopened, logger } = await openMemory({ agentId: 'alpha', db: again });
    expect(reopened.l1().map((entry) => entry.task.id)).toEqual(['good']);
    const errors = logger.entries.filter((entry) => entry.level === 'error');
    expect(errors.map((entry) => [entry.message, entry.fields['db'], entry.fields['key']])).toEqual([
      ['skipped an invalid memory record', 'memory-entries', '["alpha",7]'],
      ['skipped an invalid memory record', 'memory-entries', '["alpha",8]'],
    ]);
    expect(errors[1]?.fields['reason']).toMatch(/^undecodable/);
    await reopened.observe(memoryTask({ id: 'next', to: 'alpha' }));
    expect(reopened.l1().map((entry) => [entry.task.id, entry.seq])).toEqual([
      ['good', 0],
      ['next', 9],
    ]);
    expect(again.openDB<unknown>({ name: entriesDbName }).get(['alpha', 7])).toMatchObject({ tier: 'L3' });
  });

  it('facts left pending by a crash are finished by the next process, none twice', async () => {
    const { dir, env } = await tempEnv();
    const facts = FactStoreDouble.open('alpha', env);
    const { memory, clock } = await openMemory({ agentId: 'alpha', db: env, facts, limits: { l1Capacity: 1, l3Capacity: 1 } });
    const three: CompactionHelpers = { ...extractiveHelpers(memory.limits), extractFacts: async () => ['first', 'second', 'third'] };
    facts.failAfter = 2;
    for (const id of ['a', 'b', 'c']) {
      await memory.observe(memoryTask({ id, to: 'alpha' }));
      while (memory.compactionDue(clock.now()) && (await memory.compact(clock.now(), three)).progress);
    }
    expect(memory.counts()).toMatchObject({ pendingFacts: 1, l4: 2 });
    // The process dies here: the memory is never closed. The next one opens the same files.
    await restartAndFinish(dir, env, three);
  });
});

/** Opens the environment again as a new process would, and checks the pending facts are completed exactly once. */
async function restartAndFinish(dir: string, env: RootDatabase, helpers: CompactionHelpers): Promise<void> {
  await env.close();
  const again = reopen(dir);
  const facts = FactStoreDouble.open('alpha', again);
  const { memory, clock } = await openMemory({ agentId: 'alpha', db: again, facts, limits: { l1Capacity: 1, l3Capacity: 1 } });
  expect(memory.counts()).toMatchObject({ pendingFacts: 1, l4: 2 });
  expect(await memory.compact(clock.now(), helpers)).toMatchObject({ progress: true, facts: 1, due: false });
  expect(facts.facts.map((fact) => fact.text)).toEqual(['first', 'second', 'third']);
  expect(memory.counts().pendingFacts).toBe(0);
}

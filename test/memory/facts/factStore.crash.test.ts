import { describe, expect, it } from 'vitest';
import type { Fact, FactStore } from '../../../src/memory/facts/factStore.js';
import { seededRandom } from '../../../src/random.js';
import { factHarness } from '../../support/factStoreFixture.js';
import { randomKillPoint, runUntilKilled } from '../../support/killedWriter.js';

// Issue 14: a kill -9 during compression leaves no half-merged cluster. Every group of facts the
// writer acknowledged is there either as its three originals or as the one fact merged from
// them, never both and never neither, whatever moment the kill came at.

const { place, openStore, reopenEnv } = factHarness();
const rounds = 6;

/** Asserts the invariants over everything stored and every acknowledged group; returns how many groups are whole and how many merged. */
function checkGroups(facts: readonly Fact[], groups: readonly string[][]): { whole: number; merged: number } {
  const present = new Map(facts.map((fact) => [fact.id, fact]));
  const mergedInto = new Map<string, Fact>();
  for (const fact of facts) for (const origin of fact.mergedFrom) mergedInto.set(origin, fact);
  // Never both: no stored fact was merged into another stored fact.
  for (const fact of facts) expect(mergedInto.get(fact.id), `${fact.id} is stored and merged into another`).toBeUndefined();
  let merged = 0;
  let whole = 0;
  for (const group of groups) {
    const stored = group.filter((id) => present.has(id));
    const into = new Set(group.map((id) => mergedInto.get(id)));
    if (stored.length === group.length) {
      expect(into, `group ${group.join(' ')} is whole`).toEqual(new Set([undefined]));
      whole += 1;
    } else {
      // Never neither, never half: all three gone into one stored fact.
      expect(stored, `group ${group.join(' ')} is half merged`).toEqual([]);
      expect(into.size, `group ${group.join(' ')} went into one fact`).toBe(1);
      expect([...into][0], `group ${group.join(' ')} went somewhere`).toBeDefined();
      merged += 1;
    }
  }
  return { whole, merged };
}

/** Each stored fact is found first when searched for by its own text: the index agrees with the records. */
async function checkSearchable(store: FactStore): Promise<void> {
  for (const fact of store.list()) {
    const [first] = await store.search(fact.text, 1, { sessionId: null });
    expect(first?.fact.id, fact.text).toBe(fact.id);
  }
}

describe('L4: crash safety of compression', () => {
  it(`leaves every acknowledged group whole or merged over ${rounds} kill -9 rounds`, { timeout: 180_000 }, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`L4 crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    let at = await place();
    const groups: string[][] = [];
    // Groups found whole after a kill: acknowledged, then the kill came before their compression committed.
    let wholeAfterKill = 0;
    for (let round = 0; round < rounds; round++) {
      // The parent holds its environment closed while the writer runs, as another process would.
      await at.db.close();
      const kill = randomKillPoint(random, 10);
      const acks = await runUntilKilled('test/memory/facts/compressingWriter.ts', [at.dir, String(round)], kill);
      groups.push(...acks.filter((line) => line.startsWith('added ')).map((line) => line.split(' ').slice(1)));
      at = await reopenEnv(at);
      const { store, logger } = await openStore(at, { limits: { mergeThreshold: 1, clusterThreshold: 0.7 } });
      wholeAfterKill += checkGroups(store.list(), groups).whole;
      expect(
        logger.entries.filter((entry) => entry.level === 'error'),
        `round ${round} (killed after ${kill.acks} acks + ${kill.jitterMs} ms)`,
      ).toEqual([]);
      await checkSearchable(store);
      await store.close();
    }
    expect(groups.length).toBeGreaterThan(0);
    console.info(`L4 crash test: ${groups.length} groups acknowledged; found whole after a kill ${wholeAfterKill} times, the rest merged`);
  });
});

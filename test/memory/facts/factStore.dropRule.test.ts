import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RankedFact, dropsByGroup } from '../../../src/memory/facts/dropRule.js';
import type { Fact } from '../../../src/memory/facts/factSchema.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';
import { loggedSeed } from '../../support/loggedSeed.js';

// Which facts a compression drops: the least important of each session over its share, so a
// busy session cannot evict the facts of another.

const { openStore } = factHarness();

describe('the drop of an L4 compression', () => {
  it("a busy session drops its own facts, never the model's remembered facts of a quieter session or of the agent", async () => {
    const { store, logger } = await openStore(null, { embedder: null, limits: { compressAbove: 10, keepTopN: 8 } });
    // What the model stored with `remember` in a quiet session, and for every session, matters less than the busy session's facts.
    await store.add(fact('The quiet user writes in French.', { sessionId: 'quiet', importance: 0.2 }));
    await store.add(fact('The quiet user wants short answers.', { sessionId: 'quiet', importance: 0.2 }));
    await store.add(fact('The agent answers in plain words.', { sessionId: null, importance: 0.3 }));
    for (let i = 0; i < 7; i++) await store.add(fact(`Busy fact number ${i} about build ${i * 17}.`, { sessionId: 'busy', importance: (90 - i) / 100 }));

    expect(await store.compress()).toMatchObject({ dropped: 2, before: 10, after: 8 });
    const left = (sessionId: string | null): string[] =>
      store
        .list({ sessionId })
        .filter((kept) => kept.sessionId === sessionId)
        .map((kept) => kept.text);
    expect(left('quiet')).toEqual(['The quiet user writes in French.', 'The quiet user wants short answers.']);
    expect(left(null)).toEqual(['The agent answers in plain words.']);
    // The busy session kept its five most important.
    expect(left('busy')).toEqual([0, 1, 2, 3, 4].map((i) => `Busy fact number ${i} about build ${i * 17}.`));

    const line = logger.entries.find((entry) => entry.message === 'L4 compression dropped facts');
    expect(line).toMatchObject({ level: 'info', fields: { agentId: 'root', keep: 8, dropped: 2, groups: [{ sessionId: 'busy', dropped: 2, kept: 5 }] } });
    expect(line?.fields['facts']).toEqual([
      { id: 'f8', sessionId: 'busy', importance: 0.85, text: 'Busy fact number 5 about build 85.' },
      { id: 'f9', sessionId: 'busy', importance: 0.84, text: 'Busy fact number 6 about build 102.' },
    ]);
  });

  it('groups over their share keep equal shares, the slots left over going to the most important next facts', () => {
    // keep 8 of a: 5 facts, b: 5 facts, c: 1 fact. c keeps its one; a and b share 7, three each, and the last slot goes to b, whose fourth ranks above a's.
    const ranked = ranking([
      ['a', 0.99],
      ['b', 0.98],
      ['a', 0.97],
      ['b', 0.96],
      ['a', 0.95],
      ['b', 0.94],
      ['c', 0.1],
      ['b', 0.93],
      ['a', 0.92],
      ['a', 0.91],
      ['b', 0.9],
    ]);
    const drops = dropsByGroup(ranked, 8);
    expect(drops.map((group) => [group.sessionId, group.kept, group.dropped.map((dropped) => dropped.importance)])).toEqual([
      ['a', 3, [0.92, 0.91]],
      ['b', 4, [0.9]],
      ['c', 1, []],
    ]);
  });

  it('keeps min(all, keep); every group within the share keeps all; each group keeps its most important; no group above the share keeps more than one over another', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('s1', 's2', 's3', 's4', null), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 60 }),
        fc.nat(70),
        (facts, keep) => {
          const ranked = ranking(facts);
          const drops = dropsByGroup(ranked, keep);
          const kept = drops.reduce((sum, group) => sum + group.kept, 0);
          expect(kept).toBe(Math.min(ranked.length, keep));
          expect(drops.reduce((sum, group) => sum + group.kept + group.dropped.length, 0)).toBe(ranked.length);
          const share = Math.floor(keep / Math.max(1, drops.length));
          const above = drops.filter((group) => group.dropped.length > 0);
          for (const group of drops) {
            const size = group.kept + group.dropped.length;
            // Each group keeps at least min(its size, an equal share of keep).
            if (size <= share) expect(group.dropped).toEqual([]);
            else expect(group.kept).toBeGreaterThanOrEqual(share);
            // What it drops is its least important: its kept facts are the first of its ranking.
            const own = ranked.filter(({ fact: ranked }) => ranked.sessionId === group.sessionId).map(({ fact: ranked }) => ranked);
            expect(group.dropped).toEqual(own.slice(group.kept));
          }
          const keptAbove = above.map((group) => group.kept);
          if (keptAbove.length > 0) expect(Math.max(...keptAbove) - Math.min(...keptAbove)).toBeLessThanOrEqual(1);
          // A group that kept everything holds no more facts than one that dropped some keeps, give or take the one slot left over.
          for (const group of above)
            for (const whole of drops.filter((other) => other.dropped.length === 0)) expect(whole.kept).toBeLessThanOrEqual(group.kept + 1);
        },
      ),
      loggedSeed('L4 drop rule'),
    );
  });
});

/** Facts of the given sessions (null: agent scope) and importances, ranked most important first as a compression ranks them. */
function ranking(facts: readonly (readonly [string | null, number])[]): RankedFact[] {
  return facts
    .map(([sessionId, importance], i): RankedFact => {
      const stored: Fact = {
        v: 1,
        id: `f${i}`,
        text: `fact ${i}`,
        scope: sessionId === null ? 'agent' : 'session',
        sessionId,
        importance,
        retrievals: 0,
        createdAt: i,
        embedder: null,
        mergedFrom: [],
        fidelity: null,
      };
      return { fact: stored, importance };
    })
    .sort((a, b) => b.importance - a.importance || b.fact.createdAt - a.fact.createdAt);
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactKeywordIndex } from '../../../src/memory/facts/factKeywordIndex.js';
import { FactStore, type NewFact } from '../../../src/memory/facts/factStore.js';
import { defaultMinKeywordScore, defaultMinSimilarity } from '../../../src/memory/facts/hybridHits.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';
import { loggedSeed } from '../../support/loggedSeed.js';

// Hybrid retrieval: the keyword (BM25) channel beside the vector one, fused by reciprocal rank,
// each hit saying what each channel made of it; on real LMDB in temp dirs where it persists.

const { place, openStore, reopenEnv } = factHarness();

const sentences = [
  'Incident QX7731 was closed after the night shift restarted the queue workers.',
  'Bob likes hiking in the mountains on weekends.',
  'The user prefers dark mode in the editor.',
  'The nightly backup runs at 2am and keeps thirty days.',
  'Alice lives in Lisbon and works as a nurse.',
  'The staging server listens on port 8080.',
  'Carol is allergic to peanuts and shellfish.',
  'The quarterly report is due on the first Friday of April.',
];
const rareQuery = 'Could you tell me whether anything more happened about QX7731 yesterday evening?';
const recallFloor = { sessionId: null, minSimilarity: 0.15 };

async function filled(store: FactStore): Promise<void> {
  for (const text of sentences) await store.add(fact(text, { sessionId: null }));
}

const texts = (hits: readonly { fact: { text: string } }[]): string[] => hits.map((hit) => hit.fact.text);

describe('hybrid L4 retrieval', () => {
  it('finds by a rare token a fact the vectors rank below the floor, and says the keyword channel found it', async () => {
    const { store } = await openStore(null);
    await filled(store);
    const [hit, ...rest] = await store.search(rareQuery, 5, recallFloor);
    expect(hit?.fact.text).toContain('QX7731');
    expect(hit?.similarity).toBeLessThan(0.15);
    expect(hit?.channels.bm25).toBeGreaterThanOrEqual(defaultMinKeywordScore);
    expect(hit?.channels.graph).toBeNull();
    // Nothing else shares the query's telling word, and no other fact is close enough by its vector.
    expect(rest).toEqual([]);
  });

  it('still finds a paraphrase that shares no word with the fact, by the vector channel', async () => {
    const { store } = await openStore(null);
    await filled(store);
    const [hit] = await store.search('who goes walking in the hills', 3, recallFloor);
    expect(hit?.fact.text).toBe('Bob likes hiking in the mountains on weekends.');
    expect(hit?.channels.bm25).toBeNull();
    expect(hit?.channels.vector).toBe(hit?.similarity);
    expect(hit?.similarity).toBeGreaterThanOrEqual(0.15);
  });

  it('returns no fact below both floors, however few facts match (a peek uses the default floors)', async () => {
    const { store } = await openStore(null);
    await filled(store);
    for (const query of ['zzqv wqxj', 'a recipe for lemon cake', rareQuery]) {
      for (const hit of await store.peek(query, 8)) {
        expect(hit.similarity >= defaultMinSimilarity || (hit.channels.bm25 ?? 0) >= defaultMinKeywordScore).toBe(true);
      }
    }
    expect((await store.peek('a recipe for lemon cake', 8)).length).toBeLessThan(sentences.length);
  });

  it('keeps the keyword index in step with removes and reopens (real LMDB)', async () => {
    const at = await place();
    const first = await openStore(at);
    await filled(first.store);
    const [found] = await first.store.search(rareQuery, 1, recallFloor);
    expect(found?.fact.text).toContain('QX7731');
    await first.store.close();
    const again = await openStore(await reopenEnv(at));
    expect(texts(await again.store.search(rareQuery, 1, recallFloor))).toEqual([found?.fact.text]);
    await again.store.remove([found?.fact.id ?? '']);
    expect(await again.store.search(rareQuery, 5, recallFloor)).toEqual([]);
    await again.store.close();
    const third = await openStore(await reopenEnv(at));
    expect(await third.store.search(rareQuery, 5, recallFloor)).toEqual([]);
  });

  it('follows merges (the stored text is kept) and compressions (merged text in, originals out)', async () => {
    const { store } = await openStore(null, { limits: { compressAbove: 8, keepTopN: 4 } });
    const { fact: twin, merged } = await store.add(fact('Ticket ZK4410 is about the broken login page.', { sessionId: null }));
    expect(merged).toBe(false);
    const again = await store.add(fact('Ticket ZK4410 is about the broken login page!', { sessionId: null }));
    expect(again).toMatchObject({ merged: true, fact: { id: twin.id } });
    expect((await store.peek('ZK4410', 5)).map((hit) => hit.fact.id)).toEqual([twin.id]);
    for (let i = 0; i < 3; i++) await store.add(fact(`Release ${i} of the mobile app ships with the new login page YV${i}${i}9.`, { sessionId: null }));
    await store.compress();
    const ids = new Set(store.list().map((kept) => kept.id));
    for (const hit of await store.peek('login page ZK4410 YV009 YV119 YV229', 20)) expect(ids.has(hit.fact.id)).toBe(true);
    for (const kept of store.list()) {
      const token = /[A-Z]{2}\d{4}|YV\d{3}/.exec(kept.text)?.[0];
      if (token !== undefined) expect((await store.peek(token, 20)).map((hit) => hit.fact.id)).toContain(kept.id);
    }
  });

  it('never shows a session another session’s facts by the keyword channel (property)', async () => {
    const tokens = ['AX101', 'BX202', 'CX303', 'DX404', 'invoice', 'Lisbon'];
    const sessions = ['s1', 's2', 's3'] as const;
    const factArb: fc.Arbitrary<NewFact> = fc
      .record({ words: fc.array(fc.constantFrom(...tokens), { minLength: 1, maxLength: 3 }), session: fc.constantFrom<string | null>(...sessions, null) })
      .map(({ words, session }) => fact(`note ${words.join(' ')}`, { sessionId: session }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(factArb, { minLength: 1, maxLength: 15 }),
        fc.constantFrom(...tokens),
        fc.constantFrom<string | null>(...sessions, null),
        async (facts, token, session) => {
          const store = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db: null, indexDir: null, clock: new SimulatedClock(1) });
          try {
            for (const one of facts) await store.add(one);
            const hits = await store.search(token, 15, { sessionId: session, minSimilarity: 0.99 });
            for (const hit of hits) expect(hit.fact.sessionId === null || hit.fact.sessionId === session).toBe(true);
            // Every visible fact holding the token is found by the keyword channel alone (the vector floor is out of reach).
            const holding = store.list({ sessionId: session }).filter((kept) => kept.text.split(' ').includes(token));
            expect(new Set(hits.map((hit) => hit.fact.id))).toEqual(new Set(holding.map((kept) => kept.id)));
            for (const hit of hits) expect(hit.channels.bm25).not.toBeNull();
          } finally {
            await store.close();
          }
        },
      ),
      loggedSeed('L4 keyword channel session filter', 60),
    );
  });
});

describe('FactKeywordIndex', () => {
  it('scores after adds and removes as an index built from what is left (property)', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const opArb = fc.oneof(
      fc.record({ add: fc.integer({ min: 0, max: 9 }), text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')) }),
      fc.record({ remove: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), (ops, queryWords) => {
        const query = queryWords.join(' ');
        const index = new FactKeywordIndex();
        const held = new Map<string, string>();
        for (const op of ops) {
          if ('add' in op) {
            index.add(`f${op.add}`, op.text);
            held.set(`f${op.add}`, op.text);
          } else {
            index.remove(`f${op.remove}`);
            held.delete(`f${op.remove}`);
          }
        }
        const fresh = new FactKeywordIndex();
        for (const [id, text] of held) fresh.add(id, text);
        const found = index.nearest(query, 10, () => true);
        expect(found.map((match) => match.id)).toEqual(fresh.nearest(query, 10, () => true).map((match) => match.id));
        for (const [i, match] of fresh.nearest(query, 10, () => true).entries()) expect(found[i]?.score).toBeCloseTo(match.score, 12);
        // The best 3 a reader may see: those of the whole ranking, however few enter the best.
        const even = (id: string): boolean => Number(id.slice(1)) % 2 === 0;
        expect(index.nearest(query, 3, even)).toEqual(found.filter((match) => even(match.id)).slice(0, 3));
        // Scored one by one among the ids a reader sees: the same matches, to the last bit.
        expect(index.nearestAmong(query, 3, [...held.keys()].filter(even))).toEqual(index.nearest(query, 3, even));
      }),
      loggedSeed('FactKeywordIndex adds and removes'),
    );
  });

  it('ranks as a fresh index after most of its texts are removed and its slots numbered anew', () => {
    const text = (i: number): string => `harbour ${i % 7} ferry ${i % 11} island ${i % 13} note ${i}`;
    const index = new FactKeywordIndex();
    for (let i = 0; i < 3000; i++) index.add(`f${i}`, text(i));
    for (let i = 0; i < 2500; i++) index.remove(`f${i}`);
    index.add('f3000', text(3000));
    const fresh = new FactKeywordIndex();
    for (let i = 2500; i <= 3000; i++) fresh.add(`f${i}`, text(i));
    for (const query of ['harbour 3 ferry 5', 'island 12 note 2999', 'ferry 0'])
      expect(index.nearest(query, 20, () => true)).toEqual(fresh.nearest(query, 20, () => true));
  });
});

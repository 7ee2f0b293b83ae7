import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore, type NewFact } from '../../../src/memory/facts/factStore.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import { loggedSeed } from '../../support/loggedSeed.js';

// Session filtering (issue 14, shared decision 2): a session's search and list never contain a
// fact of another session; agent-scope facts are there for every session.

const sessions = ['s1', 's2', 's3'] as const;
const vocabulary = ['dark', 'mode', 'editor', 'Lisbon', 'nurse', 'invoice', 'March', 'deploy', 'password', 'Tuesday', 'staging', 'port'];

const factArb: fc.Arbitrary<NewFact> = fc
  .record({
    words: fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 6 }),
    session: fc.constantFrom<(typeof sessions)[number] | null>(...sessions, null),
    importance: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ words, session, importance }) => ({
    text: words.join(' '),
    scope: session === null ? 'agent' : 'session',
    sessionId: session,
    importance,
  }));

const caseArb = fc.record({
  facts: fc.array(factArb, { minLength: 1, maxLength: 12 }),
  query: fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 4 }).map((words) => words.join(' ')),
  session: fc.constantFrom<(typeof sessions)[number] | null>(...sessions, null),
  k: fc.integer({ min: 1, max: 12 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const visibleTo = (session: string | null) => (fact: { sessionId: string | null }) => fact.sessionId === null || fact.sessionId === session;

async function checkSessions(embedder: HashedNgramEmbedder | null, { facts, query, session, k }: Case): Promise<void> {
  const store = await FactStore.open({ agentId: 'root', embedder, db: null, indexDir: null, clock: new SimulatedClock(1) });
  try {
    for (const fact of facts) await store.add(fact);
    const listed = store.list({ sessionId: session });
    expect(listed.every(visibleTo(session))).toBe(true);
    expect(listed).toEqual(store.list().filter(visibleTo(session)));
    for (const other of sessions) expect(store.list({ sessionId: other }).filter((fact) => fact.scope === 'agent')).toEqual(store.list({ sessionId: null }));
    // No floor: the law below counts every fact a channel finds, however weakly.
    const hits = await store.search(query, k, { sessionId: session, minSimilarity: -1 });
    expect(hits.every((hit) => visibleTo(session)(hit.fact))).toBe(true);
    expect(hits.length).toBeLessThanOrEqual(k);
    // Every fact the session may see and shares a word with the query is found when k allows them all.
    if (embedder !== null) expect(hits.length).toBe(Math.min(k, listed.length));
    else {
      const queryWords = new Set(query.toLowerCase().split(' '));
      const sharing = listed.filter((fact) =>
        fact.text
          .toLowerCase()
          .split(' ')
          .some((word) => queryWords.has(word)),
      );
      expect(hits.length).toBe(Math.min(k, sharing.length));
    }
  } finally {
    await store.close();
  }
}

describe('L4 session filtering', () => {
  it('never shows a session another session’s facts, and shows agent facts to all (offline embedder)', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, (input) => checkSessions(new HashedNgramEmbedder({ dimension: 64 }), input)),
      loggedSeed('L4 sessions with an embedder'),
    );
  });

  it('never shows a session another session’s facts, and shows agent facts to all (no embedder)', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, (input) => checkSessions(null, input)),
      loggedSeed('L4 sessions without an embedder'),
    );
  });
});

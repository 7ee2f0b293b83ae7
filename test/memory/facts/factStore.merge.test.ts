import { describe, expect, it } from 'vitest';
import { fact, factHarness } from '../../support/factStoreFixture.js';

// Near-duplicate merge on add: a fact this close to a stored one of the same scope and session
// is merged into it, not stored twice.

const { place, openStore, reopenEnv } = factHarness();

describe('near-duplicate merge on add', () => {
  it('merges a near-duplicate into the stored fact: its text kept, importance the higher, the new one recorded as an origin', async () => {
    const at = await place();
    const { store } = await openStore(at);
    const first = await store.add(fact('The user prefers dark mode in the editor.', { importance: 0.4, metadata: { source: 'chat' } }));
    await store.search('dark mode', 1, { sessionId: 's1' });
    const second = await store.add(fact('The user prefers dark mode in the editor!', { importance: 0.9, metadata: { source: 'tool', turn: 3 } }));
    expect(first.merged).toBe(false);
    expect(second).toEqual({
      merged: true,
      fact: {
        ...first.fact,
        importance: 0.9,
        retrievals: 1,
        metadata: { source: 'chat', turn: 3 },
        mergedFrom: ['f1'],
      },
    });
    expect(store.size).toBe(1);
    expect(await store.search('dark mode editor', 5, { sessionId: 's1' })).toHaveLength(1);
    await store.close();
    const { store: reopened } = await openStore(await reopenEnv(at));
    expect(reopened.list()).toEqual([{ ...second.fact, retrievals: 2 }]);
    // The id given to the merged-away fact is never given again.
    expect((await reopened.add(fact('Something else entirely, about invoices.'))).fact.id).toBe('f2');
  });

  it('keeps facts that are only alike, and the same text in another session or scope', async () => {
    const { store } = await openStore(await place());
    const text = 'The user prefers dark mode in the editor.';
    const results = [
      await store.add(fact(text)),
      await store.add(fact('The user prefers a light theme in the terminal.')),
      await store.add(fact(text, { sessionId: 's2' })),
      await store.add(fact(text, { sessionId: null })),
    ];
    expect(results.map((result) => result.merged)).toEqual([false, false, false, false]);
    expect((await store.add(fact(text, { sessionId: null }))).merged).toBe(true);
    expect(store.size).toBe(4);
  });

  it('merges by word overlap without an embedder', async () => {
    const { store } = await openStore(null, { embedder: null });
    expect((await store.add(fact('The user prefers dark mode'))).fact.embedder).toBeNull();
    expect((await store.add(fact('the USER prefers dark mode.'))).merged).toBe(true);
    expect((await store.add(fact('the user prefers light mode'))).merged).toBe(false);
    expect(store.size).toBe(2);
  });

  it('merges two concurrent adds of one fact into one', async () => {
    const { store } = await openStore(await place());
    const [a, b] = await Promise.all([store.add(fact('Deploys happen on Fridays.')), store.add(fact('Deploys happen on Fridays.'))]);
    expect([a.merged, b.merged].sort()).toEqual([false, true]);
    expect(store.size).toBe(1);
  });

  it('keeps mergedFrom to the newest maxMergedFrom origins', async () => {
    const { store } = await openStore(null, { limits: { maxMergedFrom: 2 } });
    for (let i = 0; i < 4; i++) await store.add(fact('The build runs on Node 20.'));
    expect(store.list()[0]?.mergedFrom).toEqual(['f2', 'f3']);
  });
});

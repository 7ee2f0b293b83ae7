import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { cosine } from '../../../src/memory/embedding/vectors.js';
import { FactRecords, recordsPerTransaction } from '../../../src/memory/facts/factRecords.js';
import { MemoryLogger } from '../../../src/logger.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';
import { loggedAboveDebug } from '../../support/hnswlibTests.js';

// L4 compression: clusters of close facts (cosine + union-find over k-NN neighbours) merged when
// the merged fact stays close to every original, kept as they are when it does not; without an
// embedder, the top N by effective importance.

const { place, openStore, reopenEnv } = factHarness();
const embedder = new HashedNgramEmbedder();

/** Three wordings of one fact (pairwise cosine 0.92–0.98 with the offline embedder) and two unrelated facts. */
const darkMode = ['The user prefers dark mode in the editor.', 'The user prefers dark mode in the code editor.', 'In the editor, the user prefers dark mode.'];
const unrelated = ['Alice lives in Lisbon and works as a nurse.', 'The build uses TypeScript and runs on Node 20.'];

/** No merge on add, so the cluster reaches compression. */
const noMergeOnAdd = { mergeThreshold: 1 };

describe('L4 compression with an embedder', () => {
  it('merges a cluster that passes the fidelity check into one fact recording its fidelity, and removes the originals', async () => {
    const at = await place();
    const { store } = await openStore(at, { limits: noMergeOnAdd });
    for (const [i, text] of darkMode.entries()) await store.add(fact(text, { importance: [0.3, 0.9, 0.5][i] ?? 0 }));
    for (const text of unrelated) await store.add(fact(text));
    const report = await store.compress();
    expect(report).toEqual({ clusters: 1, merged: 1, mergedAway: 3, keptForFidelity: 0, dropped: 0, before: 5, after: 3 });
    const merged = store.list().find((stored) => stored.mergedFrom.length > 0);
    // The most important wording first, then clauses bringing words not yet said.
    expect(merged).toMatchObject({ id: 'f5', text: 'The user prefers dark mode in the code editor.', importance: 0.9, mergedFrom: ['f0', 'f1', 'f2'] });
    const [vector] = await embedder.embed([merged?.text ?? '']);
    const fidelities = await Promise.all(darkMode.map(async (text) => cosine(vector ?? [], (await embedder.embed([text]))[0] ?? [])));
    // Vectors are kept at half precision: cosines move by about 1e-5 here.
    expect(merged?.fidelity).toBeCloseTo(Math.min(...fidelities), 4);
    expect(merged?.fidelity).toBeGreaterThanOrEqual(0.85);
    expect((await store.search('dark mode', 5, { sessionId: 's1' }))[0]?.fact.id).toBe('f5');
    await store.close();
    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(reopened.list().map((stored) => stored.id)).toEqual(['f3', 'f4', 'f5']);
    expect(loggedAboveDebug(logger)).toEqual([]);
  });

  it('keeps the originals of a cluster that fails the fidelity check, untouched, and stays so when asked again', async () => {
    const { store } = await openStore(await place(), { limits: { ...noMergeOnAdd, fidelityThreshold: 0.99 } });
    for (const text of [...darkMode, ...unrelated]) await store.add(fact(text));
    const before = store.list();
    const report = await store.compress();
    expect(report).toEqual({ clusters: 1, merged: 0, mergedAway: 0, keptForFidelity: 1, dropped: 0, before: 5, after: 5 });
    expect(store.list()).toEqual(before);
    expect(await store.compress()).toEqual(report);
  });

  it('never merges facts of two sessions, or a session fact with an agent fact', async () => {
    const { store } = await openStore(await place(), { limits: noMergeOnAdd });
    await store.add(fact(darkMode[0] ?? '', { sessionId: 's1' }));
    await store.add(fact(darkMode[1] ?? '', { sessionId: 's2' }));
    await store.add(fact(darkMode[2] ?? '', { sessionId: null }));
    expect(await store.compress()).toMatchObject({ clusters: 0, merged: 0, after: 3 });
  });

  it('makes room for an add to a full store first: with no facts close, the least important go, one fewer than keepTopN when that is compressAbove', async () => {
    const { store, logger } = await openStore(await place(), { limits: { compressAbove: 2, keepTopN: 2 } });
    expect(await store.compress()).toEqual({ clusters: 0, merged: 0, mergedAway: 0, keptForFidelity: 0, dropped: 0, before: 0, after: 0 });
    await store.add(fact(unrelated[0] ?? '', { importance: 0.3 }));
    await store.add(fact(unrelated[1] ?? '', { importance: 0.4 }));
    await store.add(fact('Carol manages the billing team.', { importance: 0.9 }));
    expect(store.size).toBe(2);
    expect(store.needsCompression()).toBe(false);
    expect(logger.entries.filter((entry) => entry.message === 'L4 compressed to make room for adds').map((entry) => entry.fields)).toEqual([
      { agentId: 'root', clusters: 0, merged: 0, mergedAway: 0, keptForFidelity: 0, dropped: 1, before: 2, after: 1 },
    ]);
    expect(store.list().map((kept) => kept.text)).toEqual([unrelated[1], 'Carol manages the billing team.']);
    // The dropped fact's vector left the index too: a search finds only what is kept.
    expect((await store.search(unrelated[0] ?? '', 5, { sessionId: 's1' })).map((hit) => hit.fact.text)).not.toContain(unrelated[0]);
  });
});

describe('L4 compression that was due', () => {
  it('drops the least important down to keepTopN when merging left more, so the next add does not start another compression', async () => {
    // Filled with a higher bound than it is opened with: above compressAbove, which adds never pass.
    const at = await place();
    const { store: filling } = await openStore(at, { limits: noMergeOnAdd });
    for (const text of darkMode) await filling.add(fact(text, { importance: 0.9 }));
    for (const [i, text] of [...unrelated, 'Carol manages the billing team.'].entries()) await filling.add(fact(text, { importance: 0.1 + i / 10 }));
    await filling.close();
    const { store } = await openStore(at, { limits: { ...noMergeOnAdd, compressAbove: 5, keepTopN: 3 } });
    expect(store.needsCompression()).toBe(true);
    // The merge leaves 4 (one merged fact and three unrelated): above keepTopN, so the least important goes.
    expect(await store.compress()).toEqual({ clusters: 1, merged: 1, mergedAway: 3, keptForFidelity: 0, dropped: 1, before: 6, after: 3 });
    expect(store.list().map((kept) => kept.text)).not.toContain(unrelated[0]);
    expect(store.needsCompression()).toBe(false);
  });

  it('asked for before it is due, merges but drops nothing', async () => {
    const { store } = await openStore(await place(), { limits: { ...noMergeOnAdd, compressAbove: 6, keepTopN: 3 } });
    for (const text of [...darkMode, ...unrelated, 'Carol manages the billing team.']) await store.add(fact(text));
    expect(await store.compress()).toEqual({ clusters: 1, merged: 1, mergedAway: 3, keptForFidelity: 0, dropped: 0, before: 6, after: 4 });
  });

  it('writes what it removes in bounded transactions, each merge whole, and a reopen finds exactly what it kept', async () => {
    const at = await place();
    const { store: filling } = await openStore(at, { embedder: null });
    await Promise.all(Array.from({ length: 701 }, (_, i) => filling.add(fact(`fact number ${i} about topic ${i}`, { importance: (i % 100) / 100 }))));
    await filling.close();
    const { store } = await openStore(at, { embedder: null, limits: { compressAbove: 700, keepTopN: 100 } });
    const transactions = (): number => (at.db.getStats() as { lastTxnId: number }).lastTxnId;
    const before = transactions();
    expect(await store.compress()).toMatchObject({ dropped: 601, after: 100 });
    // 601 facts, each a fact and a vector record: at most 512 records a transaction, so at least three.
    expect(transactions() - before).toBeGreaterThanOrEqual(Math.ceil((601 * 2) / recordsPerTransaction));
    const kept = store.list().map((stored) => stored.id);
    await store.close();
    const { store: reopened } = await openStore(await reopenEnv(at), { embedder: null, limits: { compressAbove: 700, keepTopN: 100 } });
    expect(reopened.list().map((stored) => stored.id)).toEqual(kept);
  });
});

describe('L4 compression without an embedder', () => {
  it('keeps the top keepTopN by effective importance (decayed by age, raised by retrievals) and drops the rest', async () => {
    const at = await place();
    const { store, clock } = await openStore(at, { embedder: null, limits: { compressAbove: 5, keepTopN: 3, halfLifeMs: 1000, retrievalBoost: 0.1 } });
    await store.add(fact('an old important fact', { importance: 0.9 }));
    clock.advance(2000); // two half-lives: 0.9 decays to 0.225
    await store.add(fact('a recent fact of some weight', { importance: 0.5 }));
    await store.add(fact('a recent trivial fact', { importance: 0.1 }));
    await store.add(fact('a recent minor fact', { importance: 0.2 }));
    await store.add(fact('a recent fact read often', { importance: 0.05 }));
    for (let i = 0; i < 3; i++) await store.search('read often', 1, { sessionId: 's1' });
    // Not due (at compressAbove, not above it), yet without an embedder a compression keeps the top keepTopN.
    expect(store.needsCompression()).toBe(false);
    expect(await store.compress()).toEqual({ clusters: 0, merged: 0, mergedAway: 0, keptForFidelity: 0, dropped: 2, before: 5, after: 3 });
    const kept = ['a recent fact of some weight', 'a recent fact read often', 'an old important fact'];
    expect(
      store
        .list()
        .map((stored) => stored.text)
        .sort(),
    ).toEqual(kept.sort());
    expect(await store.compress()).toMatchObject({ dropped: 0, after: 3 });
    await store.close();
    const { store: reopened } = await openStore(await reopenEnv(at), { embedder: null });
    expect(
      reopened
        .list()
        .map((stored) => stored.text)
        .sort(),
    ).toEqual(kept.sort());
  });
});

describe('a compression written in several transactions', () => {
  it('writes with each one the bookkeeping as it is then, so an id an add took meanwhile is never handed out again', async () => {
    const at = await place();
    const records = new FactRecords(at.db, 'root', new MemoryLogger());
    const parts = Array.from({ length: 3 * recordsPerTransaction }, (_, i) => ({ removeFacts: [`f${i}`] }));
    let nextId = 100;
    const asked: number[] = [];
    // Each transaction asks for the bookkeeping when it is issued; an add between two of them took an id.
    await records.writeInParts(parts, () => {
      asked.push(nextId);
      return { v: 1, embedder: null, dimension: null, generation: 1, nextId: nextId++ };
    });
    expect(asked.length).toBeGreaterThanOrEqual(6);
    expect(records.meta()).toMatchObject({ nextId: asked.at(-1) });
  });
});

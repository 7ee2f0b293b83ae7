import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../../src/errors.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import type { CompressionReport, FactStore, NewFact } from '../../../src/memory/facts/factStore.js';
import { indexFileOf } from '../../../src/memory/facts/indexFile.js';
import { floodFact } from '../../support/clusteredFacts.js';
import { factHarness } from '../../support/factStoreFixture.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

// L4 held to its bound under a flood of adds (issue 30, point 5): never more than compressAbove
// facts, compression that gives the event loop turns while it works, and reports that add up.

const { place, openStore } = factHarness();

/** Adds `facts` with `concurrency` adds in flight at every moment; what each add came to, in order. */
async function flood(store: FactStore, facts: readonly NewFact[], concurrency: number, afterEach: () => void = () => undefined) {
  const outcomes: ({ id: string; merged: boolean } | { refused: TroupeError })[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < facts.length) {
      const i = next++;
      try {
        const { fact, merged } = await store.add(facts[i] as NewFact);
        outcomes[i] = { id: fact.id, merged };
      } catch (error) {
        if (!(error instanceof TroupeError)) throw error;
        outcomes[i] = { refused: error };
      }
      afterEach();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return outcomes;
}

/** Records `read()` at every turn of the event loop until stopped: what a reader (an HTTP request, an agent's turn) could see. */
function everyTurn<T>(read: () => T): { seen: T[]; turns: () => number; stop: () => void } {
  const seen: T[] = [];
  let running = true;
  const turn = (): void => {
    seen.push(read());
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return { seen, turns: () => seen.length, stop: () => (running = false) };
}

const addsUp = (report: CompressionReport): boolean => report.after === report.before - report.mergedAway + report.merged - report.dropped;

describe('L4 under a flood of adds', () => {
  it('never holds more than compressAbove facts, after any acknowledged add or at any turn of the event loop; each compression that made room adds up', async () => {
    const limits = { compressAbove: 200, keepTopN: 130 };
    const { store, logger } = await openStore(await place(), { limits });
    let most = 0;
    const watch = everyTurn(() => (most = Math.max(most, store.size)));
    const facts = Array.from({ length: 1200 }, (_, i) => floodFact(i, 25));
    const outcomes = await flood(store, facts, 400, () => (most = Math.max(most, store.size)));
    watch.stop();
    expect(outcomes.filter((outcome) => 'refused' in outcome)).toEqual([]);
    expect(most).toBeLessThanOrEqual(limits.compressAbove);
    const reports = logger.entries
      .filter((entry) => entry.message === 'L4 compressed to make room for adds')
      .map((entry) => entry.fields as unknown as CompressionReport);
    // 1,200 facts into 200 slots: room was made again and again, each time from a full store.
    expect(reports.length).toBeGreaterThanOrEqual(5);
    for (const report of reports) {
      expect(report.before).toBe(limits.compressAbove);
      expect(addsUp(report), JSON.stringify(report)).toBe(true);
      expect(report.after).toBeLessThanOrEqual(limits.keepTopN);
    }
    expect(reports.some((report) => report.merged > 0) && reports.some((report) => report.dropped > 0)).toBe(true);
  });

  it('reports exactly what a compression did while adds kept arriving: they wait for it, and land after it', async () => {
    const { store } = await openStore(await place());
    const facts = Array.from({ length: 900 }, (_, i) => floodFact(i, 5));
    await flood(store, facts.slice(0, 600), 50);
    const before = store.size;
    const compressing = store.compress();
    const during = flood(store, facts.slice(600), 100);
    const report = await compressing;
    const outcomes = await during;
    expect(report.before).toBe(before);
    expect(report.merged).toBeGreaterThan(0);
    expect(addsUp(report), JSON.stringify(report)).toBe(true);
    const stored = outcomes.filter((outcome) => 'id' in outcome && !outcome.merged).length;
    expect(store.size).toBe(report.after + stored);
  });

  it('refuses an add past maxWaitingAdds with memory_full naming the limit, and keeps every fact it acknowledged', async () => {
    const limits = { compressAbove: 50, keepTopN: 40, maxWaitingAdds: 5 };
    const { store } = await openStore(await place(), { limits });
    const facts = Array.from({ length: 150 }, (_, i) => floodFact(3 * i, 5));
    await flood(store, facts.slice(0, 50), 10);
    expect(store.size).toBe(50);
    const outcomes = await flood(store, facts.slice(50), 100);
    const refused = outcomes.flatMap((outcome) => ('refused' in outcome ? [outcome.refused] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error.code).toBe('memory_full');
      expect(error.message).toMatch(
        /^agent root holds \d+ facts while a compression runs, and 5 adds already wait for it, its limit \(maxWaitingAdds\); try again later$/,
      );
    }
    const kept = new Set(store.list().map((fact) => fact.id));
    const acknowledged = outcomes.flatMap((outcome) => ('id' in outcome ? [outcome.id] : []));
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.filter((id) => !kept.has(id))).toEqual([]);
    expect(store.size).toBeLessThanOrEqual(limits.compressAbove);
  });
});

describe('L4 compression and the event loop', () => {
  it('spreads a burst of adds over turns of the event loop: a reader sees the store part-way through the burst', async () => {
    const { store } = await openStore(await place());
    // One fact first, so the index exists and every add of the burst is ready in the same turn.
    await store.add(floodFact(0, 5));
    const watch = everyTurn(() => store.size);
    // 300 adds issued at once, each an hnswlib insert of a millisecond or more: far more than one slice of work.
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, i) => store.add(floodFact(3 * (i + 1), 5))));
    watch.stop();
    expect(outcomes.every((outcome) => !outcome.merged)).toBe(true);
    expect(store.size).toBe(301);
    const between = watch.seen.filter((size) => size > 1 && size < 301);
    expect(between.length, `sizes seen: ${[...new Set(watch.seen)].join(', ')}`).toBeGreaterThan(0);
  });

  it('gives the event loop turns while it applies its merges: a reader sees the store part-way through', async () => {
    // 900 facts, a third of them rewordings: about 300 merges, each an hnswlib insert into an index
    // of 900 (a millisecond or more each), far more than one slice of work.
    const limits = { compressAbove: 900, keepTopN: 700 };
    const { store } = await openStore(await place(), { limits });
    await flood(
      store,
      Array.from({ length: 900 }, (_, i) => floodFact(i, 5)),
      100,
    );
    const watch = everyTurn(() => store.size);
    const report = await store.compress();
    watch.stop();
    expect(report.merged).toBeGreaterThan(50);
    // Before its changes and after them, and sizes in between: merges applied while readers ran.
    const between = watch.seen.filter((size) => size < report.before && size > report.after);
    expect(between.length, `sizes seen: ${[...new Set(watch.seen)].join(', ')}`).toBeGreaterThan(0);
  });
});

describe("L4's index after a compression", () => {
  itWithHnswlib('holds no more removed vectors than live ones: a compression that removed as many rebuilds it without them', async () => {
    const where = await place();
    // maxUnindexed 0: every vector goes into the index at once, none kept out of it (see the deferred index's tests).
    const { store } = await openStore(where, { limits: { compressAbove: 300, keepTopN: 100, maxUnindexed: 0 } });
    await flood(
      store,
      Array.from({ length: 300 }, (_, i) => floodFact(i, 5)),
      20,
    );
    await store.flush();
    const full = { facts: store.size, bytes: await indexBytes(where.indexDir) };
    // Not due (at compressAbove, not above): it merges the rewordings into their originals, fewer than it keeps.
    const report = await store.compress();
    await store.flush();
    const merged = { facts: store.size, bytes: await indexBytes(where.indexDir) };
    expect(full.facts).toBe(300);
    expect(report.mergedAway).toBeGreaterThan(100);
    expect(merged.facts).toBe(300 - report.mergedAway + report.merged);
    // hnswlib's file holds every slot, removed or not, at the same bytes a slot: at most twice the live ones.
    expect(merged.bytes / full.bytes).toBeLessThan((2 * merged.facts) / full.facts);
    // Full again, one more add: the compression that makes room drops to keepTopN, removing more than it keeps, and rebuilds.
    for (let i = 1000; store.size < 300; i++) await store.add(floodFact(i, 5));
    await store.add(floodFact(5000, 5));
    await store.flush();
    const dropped = { facts: store.size, bytes: await indexBytes(where.indexDir) };
    expect(dropped.facts).toBeLessThanOrEqual(101);
    expect(dropped.bytes / full.bytes).toBeLessThan((1.1 * dropped.facts) / full.facts);
  });
});

async function indexBytes(indexDir: string): Promise<number> {
  return (await stat(indexFileOf(indexDir, 'root', new HashedNgramEmbedder()))).size;
}

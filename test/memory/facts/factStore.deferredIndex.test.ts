import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import type { FactStore } from '../../../src/memory/facts/factStore.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';
import { runUntilSelfKilled } from '../../support/killedWriter.js';

// Issue 33: an add does not put its fact's vector into hnswlib on its own path. The vector waits
// (at most `maxUnindexed` of them) and goes in once the process has spare time; meanwhile every
// search compares with it directly. The fact and its vector are on disk when the add resolves,
// so a restart finds every acknowledged fact whatever the index held.

const { place, openStore, reopenEnv } = factHarness();

/** Agent-scope facts about made-up harbours: a search with `sessionId: null` looks through them all, through hnswlib for those indexed. */
const harbour = (i: number) => fact(`Harbour ${i} ships grain to the island of Vel${i * 7} every spring.`, { sessionId: null });

/** Asserts that each of `texts` is found first when searched for by its own text. */
async function expectEachFound(store: FactStore, texts: readonly string[]): Promise<void> {
  for (const text of texts) expect((await store.search(text, 1, { sessionId: null }))[0]?.fact.text, text).toBe(text);
}

/** Resolves once the store's index holds every vector, put in by its own background catch-up (not a flush, which would hurry it). */
async function untilIndexed(store: FactStore): Promise<void> {
  while (store.unindexed > 0) await sleep(5);
}

describe('L4: a vector goes into the index off the add’s path', () => {
  itWithHnswlib('finds a fact the moment its add resolves, and after the background catch-up put its vector in the index saved on close', async () => {
    const at = await place();
    const { store } = await openStore(at);
    // More agent-scope facts than a search compares directly (2,048): their vectors go into the index (a few are kept out of it: see below).
    await store.addMany(Array.from({ length: 2048 }, (_, i) => ({ fact: harbour(100 + i), merge: false })));
    await store.add(harbour(0));
    // The index exists and holds them: what follows is about vectors waiting for it.
    await store.flush();
    expect(store.unindexed).toBe(0);
    const texts = Array.from({ length: 40 }, (_, i) => harbour(i + 1).text);
    // On a data dir each add waits for its write, during which the catch-up may already run: how
    // many vectors still wait here depends on the machine (the next test sees them wait for sure).
    for (const text of texts) await store.add({ ...harbour(0), text });
    const [hit] = await store.search(texts[39] ?? '', 1, { sessionId: null });
    expect(hit?.fact.text).toBe(texts[39]);

    await untilIndexed(store);
    // Nothing waits: every search below goes through hnswlib alone.
    await expectEachFound(store, texts);
    await store.close();

    // The file saved on close holds them: the reopened store loads it rather than rebuilding it.
    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(logger.entries.filter((entry) => entry.message === 'rebuilt the L4 index from the stored vectors')).toEqual([]);
    expect(reopened.unindexed).toBe(0);
    await expectEachFound(reopened, texts);
  });

  itWithHnswlib('puts the vector in at once when maxUnindexed already wait, and searches find every fact either way', async () => {
    const { store } = await openStore(null, { limits: { maxUnindexed: 3 } });
    // More agent-scope facts than a search compares directly (2,048): every search of them reads the index.
    await store.addMany(Array.from({ length: 2048 }, (_, i) => ({ fact: harbour(100 + i), merge: false })));
    await store.add(harbour(0));
    await store.flush();
    // In memory only an add resolves without a turn of the event loop: no catch-up can run between these.
    for (let i = 1; i <= 8; i++) await store.add(harbour(i));
    expect(store.unindexed).toBe(3);
    await expectEachFound(
      store,
      Array.from({ length: 9 }, (_, i) => harbour(i).text),
    );
    await store.flush();
    expect(store.unindexed).toBe(0);

    const { store: atOnce } = await openStore(null, { limits: { maxUnindexed: 0 } });
    for (let i = 0; i < 5; i++) await atOnce.add(harbour(i));
    expect(atOnce.unindexed).toBe(0);
  });

  itWithHnswlib("keeps a session's few vectors out of the index: none waits for it, each is found, and a reopen loads the file without them", async () => {
    const at = await place();
    const { store } = await openStore(at);
    const notes = Array.from({ length: 20 }, (_, i) => fact(`Harbour ${i} ships grain to the island of Vel${i * 7} every spring.`, { sessionId: 's1' }));
    for (const note of notes) await store.add(note);
    expect(store.unindexed).toBe(0);
    const found = async (opened: FactStore) => {
      for (const note of notes) expect((await opened.search(note.text, 1, { sessionId: 's1' }))[0]?.fact.text).toBe(note.text);
    };
    await found(store);
    await store.close();
    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(logger.entries.filter((entry) => entry.message === 'rebuilt the L4 index from the stored vectors')).toEqual([]);
    await found(reopened);
    // A view of the whole store compares with them too.
    expect((await reopened.peek(notes[3]?.text ?? '', 1))[0]?.fact.text).toBe(notes[3]?.text);
  });

  itWithHnswlib(
    'after a kill -9 with vectors waiting for the index, reopens with every acknowledged fact in the index and found',
    async () => {
      const at = await place();
      // The parent holds its environment closed while the writer runs, as another process would.
      await at.db.close();
      const lines = await runUntilSelfKilled('test/memory/facts/unindexedWriter.ts', [at.dir]);
      const acknowledged = lines.filter((line) => line.startsWith('added ')).flatMap((line) => line.split(' ').slice(1));
      const waiting = Number(lines.find((line) => line.startsWith('unindexed '))?.split(' ')[1]);
      expect(lines).toContain('saved');
      expect(waiting).toBeGreaterThan(0);

      const { store, logger } = await openStore(await reopenEnv(at));
      expect(store.size).toBe(acknowledged.length);
      expect(store.unindexed).toBe(0);
      // The file saved after the first batch is older than the stored vectors: the index is rebuilt from them.
      const rebuilds = logger.entries.filter((entry) => entry.message === 'rebuilt the L4 index from the stored vectors');
      expect(rebuilds.map((entry) => String(entry.fields['reason']))).toEqual([expect.stringMatching(/^it was saved at generation \d+ \(100 vectors\)/)]);
      const byId = new Map(store.list().map((stored) => [stored.id, stored.text]));
      await expectEachFound(
        store,
        acknowledged.map((id) => byId.get(id) ?? `missing ${id}`),
      );
    },
    60_000,
  );
});

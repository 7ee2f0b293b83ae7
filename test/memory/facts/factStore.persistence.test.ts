import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { TroupeError, ValidationError } from '../../../src/errors.js';
import { OpenAIEmbeddings } from '../../../src/llm/index.js';
import type { MemoryLogger } from '../../../src/logger.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import type { FactLimitOptions } from '../../../src/memory/facts/factLimits.js';
import type { FactStore } from '../../../src/memory/facts/factStore.js';
import { HnswIndex } from '../../../src/memory/facts/hnswIndex.js';
import { startOpenAICompatibleServer } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { type FactPlace, fact, factHarness } from '../../support/factStoreFixture.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

// L4 on real LMDB files in a temp dir and a real hnswlib index file beside them (the tests of the
// file skip where hnswlib-node did not build: L4 then keeps no index file).

const { place, openStore, reopenEnv } = factHarness();
const later = cleanupAfterEach();

const sentences = [
  'The user prefers dark mode in the editor.',
  'Alice lives in Lisbon and works as a nurse.',
  'The deployment failed because the database password expired.',
  'The design team meets on Tuesdays at 10am.',
  'The customer paid the March invoice late.',
  'The staging server listens on port 8080.',
  'Bob likes hiking in the mountains on weekends.',
  'The build uses TypeScript and runs on Node 20.',
  'Quarterly revenue grew by twelve percent.',
  'The API key for the weather service is stored in the vault.',
];
const queries = ['what theme does the user like', 'where does Alice live', 'why did the deploy fail', 'which port does staging use'];

async function filled(at: FactPlace, limits: FactLimitOptions = {}): Promise<FactStore> {
  const { store } = await openStore(at, { limits });
  for (const [i, text] of sentences.entries()) await store.add(fact(text, i % 3 === 0 ? { sessionId: null } : {}));
  return store;
}

/** Each query's hits as ids and rounded similarities. */
async function answers(store: FactStore): Promise<string[][]> {
  const found: string[][] = [];
  for (const query of queries) found.push((await store.search(query, 3, { sessionId: 's1' })).map((hit) => `${hit.fact.id} ${hit.similarity.toFixed(5)}`));
  return found;
}

const rebuilds = (logger: MemoryLogger) => logger.entries.filter((entry) => entry.message === 'rebuilt the L4 index from the stored vectors');

/** Why each rebuild happened, as logged. */
const rebuildReasons = (logger: MemoryLogger): unknown[] => rebuilds(logger).map((entry) => entry.fields['reason']);

async function indexFiles(at: FactPlace): Promise<string[]> {
  return (await readdir(at.indexDir)).sort();
}

describe('L4 persistence', () => {
  itWithHnswlib('survives close and reopen with the same facts and the same search results, read from the saved index', async () => {
    const at = await place();
    const store = await filled(at);
    const before = await answers(store);
    expect(before[0]?.[0]).toMatch(/^f0 /);
    const listed = store.list();
    await store.close();
    expect((await indexFiles(at)).map((name) => name.replace(/\.[0-9a-f]{12}\./, '.<hash>.'))).toEqual(['root.<hash>.hnsw', 'root.<hash>.hnsw.json']);

    const again = await reopenEnv(at);
    const { store: reopened, logger } = await openStore(again);
    expect(reopened.list()).toEqual(listed);
    expect(await answers(reopened)).toEqual(before);
    expect(rebuilds(logger)).toEqual([]);
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('counts retrievals durably', async () => {
    const at = await place();
    const store = await filled(at);
    await store.search('dark mode', 1, { sessionId: 's1' });
    await store.search('dark mode', 1, { sessionId: 's1' });
    await store.close();
    const { store: reopened } = await openStore(await reopenEnv(at));
    expect(reopened.list().find((stored) => stored.id === 'f0')?.retrievals).toBe(2);
  });

  itWithHnswlib('rebuilds a deleted index file from the stored vectors, saying why, with the same results', async () => {
    const at = await place();
    const store = await filled(at);
    const before = await answers(store);
    await store.close();
    for (const file of await indexFiles(at)) if (file.endsWith('.hnsw')) await rm(join(at.indexDir, file));

    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(rebuilds(logger)).toEqual([
      {
        level: 'warn',
        message: 'rebuilt the L4 index from the stored vectors',
        fields: { agentId: 'root', reason: 'the index file is missing', vectors: 10, reembedded: 0 },
      },
    ]);
    // The vectors in memory are those stored (half precision): the rebuilt index is the lost one, similarities and all.
    expect(await answers(reopened)).toEqual(before);
    await reopened.close();
    // Saved again on the rebuild: the next open reads it.
    const { logger: third } = await openStore(await reopenEnv(at));
    expect(rebuilds(third)).toEqual([]);
  });

  itWithHnswlib('stores vectors in half precision (2 bytes a number), and reads vectors an earlier version stored as float32', async () => {
    const at = await place();
    const store = await filled(at);
    const before = await answers(store);
    await store.close();
    const vectors = at.db.openDB<{ v: number; embedder: string; vector: Uint8Array }>({ name: 'memory-vectors' });
    const stored = [...vectors.getRange({ start: ['root'], end: ['root', '~'] })];
    expect(stored).toHaveLength(sentences.length);
    expect(stored.map(({ value }) => [value.v, value.vector.byteLength])).toEqual(stored.map(() => [2, 2 * new HashedNgramEmbedder().dimension]));
    // As an earlier version wrote them: every vector as float32s (`v: 1`), and no index file, so open rebuilds from them.
    for (const { key, value } of stored) {
      const halves = new DataView(value.vector.buffer, value.vector.byteOffset, value.vector.byteLength);
      const floats = new DataView(new ArrayBuffer(value.vector.byteLength * 2));
      for (let i = 0; i < value.vector.byteLength / 2; i++) floats.setFloat32(i * 4, halfToNumber(halves.getUint16(i * 2, true)), true);
      await vectors.put(key, { v: 1, embedder: value.embedder, vector: new Uint8Array(floats.buffer) });
    }
    for (const file of await indexFiles(at)) await rm(join(at.indexDir, file));
    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(rebuildReasons(logger)).toEqual(['the index file is missing']);
    expect(await answers(reopened)).toEqual(before);
  });

  itWithHnswlib('rebuilds an index older than the stored vectors (a crash between the LMDB write and the index save)', async () => {
    const at = await place();
    const first = await filled(at);
    await first.close();
    // Facts added and acknowledged (on disk), then the process dies: this store is never closed, its index never saved.
    const { store: crashed } = await openStore(at);
    await crashed.add(fact('The office wifi password changes every Monday.'));
    await crashed.add(fact('Carol manages the billing team.', { sessionId: null }));

    const { store: restarted, logger } = await openStore(at);
    expect(rebuildReasons(logger)).toHaveLength(1);
    expect(rebuildReasons(logger)[0]).toMatch(/saved at generation \d+ \(10 vectors\), the stored vectors are at \d+ \(12\)/);
    expect(restarted.size).toBe(12);
    expect((await restarted.search('who manages billing', 1, { sessionId: 's9' }))[0]?.fact.text).toBe('Carol manages the billing team.');
  });

  itWithHnswlib('saves the index on flush while the store stays open, so a process that dies then needs no rebuild', async () => {
    const at = await place();
    const store = await filled(at);
    await store.flush();
    expect(await indexFiles(at)).toHaveLength(2);
    // The process dies here, its store never closed: the next one reads the flushed index.
    const { store: restarted, logger } = await openStore(at);
    expect(rebuilds(logger)).toEqual([]);
    expect(await answers(restarted)).toEqual(await answers(store));
  });

  itWithHnswlib('holds an add while the index file is being written, never changing the index under hnswlib’s writer', async () => {
    const at = await place();
    // Every add puts its vector in at once (none waits for the index), so an add not held would change the index under the writer.
    const store = await filled(at, { maxUnindexed: 0 });
    // Watches the real writer: how many vectors the index held when hnswlib began writing and when it finished.
    const sizes: [number, number][] = [];
    const write = Object.getOwnPropertyDescriptor(HnswIndex.prototype, 'write')?.value as (this: HnswIndex, file: string) => Promise<void>;
    const spy = vi.spyOn(HnswIndex.prototype, 'write').mockImplementation(async function (this: HnswIndex, file: string) {
      const before = this.size;
      await write.call(this, file);
      sizes.push([before, this.size]);
    });
    later(async () => spy.mockRestore());
    const flushed = store.flush();
    const added = store.add(fact('The office wifi password changes every Monday.'));
    const order: string[] = [];
    await Promise.all([flushed.then(() => order.push('flushed')), added.then(() => order.push('added'))]);
    expect(sizes).toEqual([[10, 10]]);
    expect(order).toEqual(['flushed', 'added']);
    await store.close();
    const { store: reopened, logger } = await openStore(await reopenEnv(at));
    expect(rebuilds(logger)).toEqual([]);
    expect(reopened.size).toBe(11);
  });

  itWithHnswlib('rebuilds an index file that is garbled, without handing it to hnswlib', async () => {
    const at = await place();
    await (await filled(at)).close();
    const file = (await indexFiles(at)).find((name) => name.endsWith('.hnsw')) ?? '';
    const { size } = await stat(join(at.indexDir, file));
    await writeFile(join(at.indexDir, file), Buffer.alloc(size, 0x5a));
    const { store, logger } = await openStore(await reopenEnv(at));
    expect(rebuildReasons(logger)).toEqual(['the index file does not match its checksum (truncated or damaged)']);
    expect((await store.search('dark mode', 1, { sessionId: 's1' }))[0]?.fact.id).toBe('f0');
  });

  itWithHnswlib(
    'skips a corrupt fact record and a corrupt vector with an error naming the sub-db and key, and re-embeds the fact whose vector was lost',
    async () => {
      const at = await place();
      await (await filled(at)).close();
      await at.db.openDB({ name: 'memory-facts' }).put(['root', 'f999'], { v: 1, text: 42 });
      await at.db.openDB({ name: 'memory-vectors' }).put(['root', 'f1'], { v: 1, embedder: 'hashed-ngram-v1-384', vector: 'not bytes' });
      // Vectors are read when the index is rebuilt (a saved index that matches is trusted as it is).
      for (const file of await indexFiles(at)) await rm(join(at.indexDir, file));
      const { store, logger } = await openStore(await reopenEnv(at));
      const errors = logger.entries.filter((entry) => entry.level === 'error');
      expect(errors.map((entry) => [entry.message, entry.fields['db'], entry.fields['key']])).toEqual([
        ['skipped an invalid L4 memory record', 'memory-facts', '["root","f999"]'],
        ['skipped an invalid L4 memory record', 'memory-vectors', '["root","f1"]'],
      ]);
      expect(store.size).toBe(10);
      expect(rebuilds(logger)[0]?.fields).toMatchObject({ reembedded: 1 });
      expect((await store.search('where does Alice live', 1, { sessionId: 's1' }))[0]?.fact.id).toBe('f1');
    },
  );

  it('refuses another embedder than the stored vectors were made with, naming both', async () => {
    const at = await place();
    await (await filled(at)).close();
    const mismatch = async (embedder: ConstructorParameters<typeof Object>[0]): Promise<TroupeError> => {
      const error: unknown = await openStore(at, { embedder: embedder as never }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TroupeError);
      expect((error as TroupeError).code).toBe('embedder_mismatch');
      return error as TroupeError;
    };
    expect((await mismatch(new HashedNgramEmbedder({ dimension: 256 }))).message).toBe(
      "agent root's L4 facts were stored with hashed-ngram-v1-384 (384 dimensions), and it was opened with hashed-ngram-v1-256 (256 dimensions): vectors of two embedders never mix; open it with the embedder they were made with",
    );
    const server = await startOpenAICompatibleServer();
    later(() => server.close());
    expect((await mismatch(new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'test-embed', dimension: 384 }))).message).toMatch(
      /stored with hashed-ngram-v1-384 \(384 dimensions\), and it was opened with openai:test-embed \(384 dimensions\)/,
    );
    expect((await mismatch(null)).message).toMatch(/opened with no embedder/);
    expect(server.embeddingCalls).toBe(0);
  });

  it('keeps agents apart in one environment, and lets an agent with no facts take any embedder', async () => {
    const at = await place();
    await (await filled(at)).close();
    const { store: other } = await openStore(at, { agentId: 'poet-1', embedder: new HashedNgramEmbedder({ dimension: 64 }) });
    expect(other.size).toBe(0);
    expect(await other.search('dark mode', 5, { sessionId: 's1' })).toEqual([]);
    await other.add(fact('Poems should rhyme.'));
    await other.close();
    const { store: root } = await openStore(at);
    expect(root.size).toBe(10);
  });

  it('lives in memory only without a db, writing nothing', async () => {
    const { store } = await openStore(null);
    await store.add(fact('The user prefers dark mode in the editor.'));
    expect((await store.search('dark mode', 1, { sessionId: 's1' }))[0]?.fact.retrievals).toBe(1);
    await store.close();
    await expect(openStore(null, { indexDir: '/tmp/anywhere' })).rejects.toThrow(ValidationError);
    await expect(openStore(null, { indexDir: '/tmp/anywhere' })).rejects.toThrow(/indexDir: needs db/);
  });
});

/** The number float16 `bits` stand for (normal and subnormal numbers; what unit vectors hold). */
function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  return exponent === 0 ? sign * mantissa * 2 ** -24 : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

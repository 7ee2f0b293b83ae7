import { readdir, stat, writeFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { type GraphMemory, openGraphMemory } from '../../src/graph/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import type { Embedder } from '../../src/memory/embedding/embedder.js';
import { eraseStoredMemories } from '../../src/memory/erasedMemory.js';
import { limitsOf } from '../../src/memory/facts/factLimits.js';
import { indexParams } from '../../src/memory/facts/loadFacts.js';
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { GraphHub } from '../../src/runtime/memory/graphHub.js';
import { GraphRetrieval } from '../../src/runtime/memory/graphRetrieval.js';
import { nodeVectorFileOf } from '../../src/runtime/memory/nodeVectorFile.js';
import { NodeVectors } from '../../src/runtime/memory/nodeVectors.js';
import { type FactPlace, factHarness } from '../support/factStoreFixture.js';
import { itWithHnswlib, loggedAboveDebug } from '../support/hnswlibTests.js';

// A graph's node vectors saved beside the fact index when the graph closes, and read back at the
// next opening: on real LMDB and hnswlib files in temp dirs, the offline embedder counted.

const { place, reopenEnv } = factHarness();

/** The offline embedder, counting the texts it is given. */
class CountingEmbedder implements Embedder {
  readonly #inner = new HashedNgramEmbedder();
  readonly id = this.#inner.id;
  readonly dimension = this.#inner.dimension;
  embedded = 0;
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return this.#inner.embed(texts);
  }
}

/** `at`'s graph of root opened with node vectors kept in its index dir, saved however few unless `minSaved` says (null: its default); every vector made before it resolves. */
async function opened(at: FactPlace, minSaved: number | null = 0) {
  const memory = await openGraphMemory({ db: at.db, ownerId: 'root' });
  const embedder = new CountingEmbedder();
  const logger = new MemoryLogger();
  const file = nodeVectorFileOf(at.indexDir, 'root', embedder);
  const vectors = new NodeVectors({
    embedder,
    params: indexParams(embedder.dimension, limitsOf({})),
    logger,
    file,
    owner: 'root',
    ...(minSaved === null ? {} : { minSaved }),
  });
  const retrieval = new GraphRetrieval(memory, vectors);
  await retrieval.ready();
  return { memory, embedder, logger, retrieval, file };
}

/** The ids of the nodes nearest `text` by their vectors alone. */
async function nearestByVector(retrieval: GraphRetrieval, text: string): Promise<string[]> {
  const [direction] = await new HashedNgramEmbedder().embed([text]);
  return retrieval.similar(direction ?? new Float32Array(), 3, undefined).map((hit) => hit.id);
}

async function notes(memory: GraphMemory, ...contents: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of contents) ids.push((await memory.addNote({ content })).id);
  return ids;
}

const reasons = (logger: MemoryLogger) => loggedAboveDebug(logger).map((entry) => entry.message);

describe("a graph's node vectors across a reopening", () => {
  itWithHnswlib('are read back from their file, none embedded again', async () => {
    const at = await place();
    const first = await opened(at);
    const [deploy] = await notes(first.memory, 'Kubernetes deployment of the ledger', 'Lunch order for Friday', 'Quarterly tax filing');
    await first.retrieval.ready();
    expect(first.embedder.embedded).toBe(3);
    await first.retrieval.close();
    const again = await opened(await reopenEnv(at));
    expect(again.embedder.embedded).toBe(0);
    expect(reasons(again.logger)).toEqual([]);
    expect((await nearestByVector(again.retrieval, 'Kubernetes deployment of the ledger'))[0]).toBe(deploy);
    // Nothing changed: closing again leaves the file as it was.
    const { mtimeMs } = await stat(again.file);
    await again.retrieval.close();
    expect((await stat(again.file)).mtimeMs).toBe(mtimeMs);
  });

  itWithHnswlib("are saved by the runtime's graph hub when it closes the graph, and read back by the next one", async () => {
    const at = await place();
    const embedder = new CountingEmbedder();
    const hubOn = (where: FactPlace) =>
      new GraphHub({
        store: { db: where.db, indexDir: where.indexDir },
        clock: systemClock,
        ids: randomIds,
        logger: new MemoryLogger(),
        limits: undefined,
        vectors: { embedder, params: indexParams(embedder.dimension, limitsOf({})), minSaved: 0 },
      });
    const hub = hubOn(at);
    await notes(await hub.of('root'), 'Kubernetes deployment of the ledger', 'Lunch order for Friday');
    await (await hub.retrievalOf('root')).ready();
    expect(embedder.embedded).toBe(2);
    await hub.closeAll();
    const reopened = await hubOn(await reopenEnv(at)).retrievalOf('root');
    await reopened.ready();
    expect(embedder.embedded).toBe(2);
    expect(await nearestByVector(reopened, 'Lunch order for Friday')).toHaveLength(2);
  });

  itWithHnswlib('are not saved while they are fewer than minSaved (32 by default): the next opening makes them again', async () => {
    const at = await place();
    const first = await opened(at, null);
    await notes(first.memory, 'Kubernetes deployment of the ledger', 'Lunch order for Friday');
    await first.retrieval.ready();
    await first.retrieval.close();
    await expect(stat(first.file)).rejects.toThrow(/ENOENT/);
    expect((await opened(await reopenEnv(at), null)).embedder.embedded).toBe(2);
  });

  itWithHnswlib('are made anew from a damaged file, with a log line saying why', async () => {
    const at = await place();
    const first = await opened(at);
    await notes(first.memory, 'Kubernetes deployment of the ledger', 'Lunch order for Friday');
    await first.retrieval.ready();
    await first.retrieval.close();
    const { size } = await stat(first.file);
    await writeFile(first.file, Buffer.alloc(size, 0x5a));
    const again = await opened(await reopenEnv(at));
    expect(again.embedder.embedded).toBe(2);
    expect(again.logger.entries.find((entry) => entry.level === 'warn')?.fields['reason']).toBe(
      'the index file does not match its checksum (truncated or damaged)',
    );
    // Made anew, and saved so at the close: the next opening reads them back.
    await again.retrieval.close();
    expect((await opened(await reopenEnv(at))).embedder.embedded).toBe(0);
  });

  itWithHnswlib('from a file older than the graph (nodes added, changed, removed after the save, then a kill), keep only what still matches', async () => {
    const at = await place();
    const first = await opened(at);
    const [kept, changed, removed] = await notes(first.memory, 'Kubernetes deployment of the ledger', 'Lunch order for Friday', 'Quarterly tax filing');
    await first.retrieval.ready();
    await first.retrieval.close();
    // Changes after the save, with no close to save them again: as a kill leaves it.
    await first.memory.updateNode(changed ?? '', { content: 'Dinner order for Saturday' });
    await first.memory.removeNode(removed ?? '');
    const [added] = await notes(first.memory, 'Renewal of the office lease');
    await first.memory.flushed();
    const again = await opened(await reopenEnv(at));
    expect(again.embedder.embedded).toBe(2);
    const stale = again.logger.entries.find((entry) => entry.message.includes('stale'));
    expect(stale?.fields).toMatchObject({ restored: 1, dropped: 2, embedded: 2 });
    expect((await nearestByVector(again.retrieval, 'Kubernetes deployment of the ledger'))[0]).toBe(kept);
    expect((await nearestByVector(again.retrieval, 'Renewal of the office lease'))[0]).toBe(added);
    expect((await nearestByVector(again.retrieval, 'Dinner order for Saturday'))[0]).toBe(changed);
    expect(await nearestByVector(again.retrieval, 'Quarterly tax filing')).not.toContain(removed);
  });

  itWithHnswlib("drop removed nodes' slots once they are as many as the live ones, as the facts' index does", async () => {
    const at = await place();
    const memory = await openGraphMemory({ db: at.db, ownerId: 'root' });
    const embedder = new HashedNgramEmbedder();
    const vectors = new NodeVectors({ embedder, params: indexParams(embedder.dimension, limitsOf({})), logger: new MemoryLogger() });
    const retrieval = new GraphRetrieval(memory, vectors);
    const ids = await notes(memory, ...Array.from({ length: 10 }, (_, i) => `Finding number ${i} of the review`));
    await retrieval.ready();
    for (const id of ids.slice(0, 4)) await memory.removeNode(id);
    await retrieval.ready();
    expect(vectors.removedSlots).toBe(4);
    await memory.removeNode(ids[4] ?? '');
    await retrieval.ready();
    // 5 removed, 5 live: rebuilt without them.
    expect(vectors.removedSlots).toBe(0);
    expect(await nearestByVector(retrieval, 'Finding number 7 of the review')).toContain(ids[7]);
  });

  itWithHnswlib('are erased with their agent', async () => {
    const at = await place();
    const first = await opened(at);
    await notes(first.memory, 'Kubernetes deployment of the ledger');
    await first.retrieval.ready();
    await first.retrieval.close();
    const graphFiles = async () => (await readdir(at.indexDir)).filter((name) => name.startsWith('root.graph.'));
    expect(await graphFiles()).toHaveLength(2);
    await eraseStoredMemories(at.db, at.indexDir, ['root']);
    expect(await graphFiles()).toEqual([]);
  });
});

import { setImmediate as nextTurn } from 'node:timers/promises';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../memory/embedding/embedder.js';
import { dot } from '../../memory/embedding/vectors.js';
import { createVectorIndex } from '../../memory/facts/createVectorIndex.js';
import { embedMany } from '../../memory/facts/factEmbedding.js';
import { groupOf, groupsVisibleTo } from '../../memory/facts/factSchema.js';
import { GroupedVectors } from '../../memory/facts/groupedVectors.js';
import type { IndexParams, VectorIndex } from '../../memory/facts/vectorIndex.js';

/** Nodes embedded and indexed in one slice: about 16 hnswlib inserts, a few milliseconds. */
const perSlice = 16;

/** A node's text waiting to be embedded, and the group (its session's) its vector goes in. */
interface Waiting {
  readonly text: string;
  readonly group: string;
}

/**
 * The vectors of one graph's nodes, made by the agent's embedder from the text a search reads of
 * each (see GraphRetrieval), in an index of their own (hnswlib's, as L4's facts; grouped by
 * session, so a search within a session compares directly when the session's nodes are few). The
 * graph's structure stays in its store and in memory; the vectors are made from it: when the
 * graph is first searched, and again for each node that is added or whose text changes, in slices
 * between turns of the event loop. Until a node's vector is made, a search finds it by its words
 * and the links that lead to it, as before it had one.
 */
export class NodeVectors {
  readonly #embedder: Embedder;
  readonly #params: IndexParams;
  readonly #logger: Logger;
  readonly #vectors = new GroupedVectors();
  readonly #labels = new Map<string, number>();
  readonly #ids = new Map<number, string>();
  /** The text each node's vector was made from: the same text again needs no new one. */
  readonly #texts = new Map<string, string>();
  readonly #waiting = new Map<string, Waiting>();
  #nextLabel = 0;
  #index: VectorIndex | null = null;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(embedder: Embedder, params: Omit<IndexParams, 'dimension'>, logger: Logger) {
    this.#embedder = embedder;
    this.#params = { ...params, dimension: embedder.dimension };
    this.#logger = logger;
  }

  /** Nodes whose vector is not made yet. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Makes node `id`'s vector from `text` (soon, in the background), unless it was made from that text. */
  put(id: string, text: string, sessionId: string | null): void {
    if (this.#closed || (this.#texts.get(id) === text && !this.#waiting.has(id))) return;
    this.remove(id);
    this.#waiting.set(id, { text, group: groupOf({ sessionId }) });
    this.#start();
  }

  remove(id: string): void {
    this.#waiting.delete(id);
    this.#texts.delete(id);
    const label = this.#labels.get(id);
    if (label === undefined) return;
    this.#labels.delete(id);
    this.#ids.delete(label);
    this.#vectors.remove(label);
    this.#index?.remove(label);
  }

  /** Up to `depth` nodes a reader of `sessionId` may see nearest to the unit vector `direction`, with their cosine, nearest first. */
  nearest(direction: Float32Array, depth: number, sessionId: string | null | undefined): { id: string; similarity: number }[] {
    if (this.#index === null || this.#labels.size === 0) return [];
    const groups = sessionId === undefined ? undefined : groupsVisibleTo(sessionId);
    return this.#vectors.nearest(this.#index, direction, depth, groups).flatMap(({ label, similarity }) => {
      const id = this.#ids.get(label);
      return id === undefined ? [] : [{ id, similarity }];
    });
  }

  /** The cosine of node `id`'s vector to the unit vector `direction`; undefined while it has none. */
  similarity(direction: Float32Array, id: string): number | undefined {
    const label = this.#labels.get(id);
    const vector = label === undefined ? undefined : this.#vectors.vectorOf(label);
    return vector === undefined ? undefined : dot(direction, vector);
  }

  /** Resolves once every node put so far has its vector. */
  async ready(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** Makes no more vectors (the graph is closed). */
  close(): void {
    this.#closed = true;
    this.#waiting.clear();
  }

  #start(): void {
    if (this.#running !== undefined) return;
    this.#running = this.#run()
      .catch((error: unknown) => {
        this.#logger.error({ error: describeError(error) }, "making the vectors of a graph's nodes failed; they are found by their words and links");
        this.#waiting.clear();
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #run(): Promise<void> {
    while (this.#waiting.size > 0) {
      const slice: [string, Waiting][] = [];
      for (const entry of this.#waiting) {
        slice.push(entry);
        if (slice.length === perSlice) break;
      }
      const vectors = await embedMany(
        this.#embedder,
        slice.map(([, waiting]) => waiting.text),
      );
      this.#index ??= await createVectorIndex(this.#params, this.#logger);
      for (const [i, [id, waiting]] of slice.entries()) {
        const vector = vectors?.[i];
        // Removed or changed while it was embedded: the newer text is embedded in its turn.
        if (vector === undefined || this.#waiting.get(id) !== waiting) continue;
        this.#waiting.delete(id);
        const label = this.#nextLabel++;
        this.#labels.set(id, label);
        this.#ids.set(label, id);
        this.#texts.set(id, waiting.text);
        this.#vectors.add(label, waiting.group, vector);
        this.#index.add(label, vector);
      }
      await nextTurn();
    }
  }
}

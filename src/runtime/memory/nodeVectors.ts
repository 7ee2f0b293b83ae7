import { setImmediate as nextTurn } from 'node:timers/promises';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../memory/embedding/embedder.js';
import { dot } from '../../memory/embedding/vectors.js';
import { createVectorIndex } from '../../memory/facts/createVectorIndex.js';
import { embedMany } from '../../memory/facts/factEmbedding.js';
import { groupOf, groupsVisibleTo } from '../../memory/facts/factSchema.js';
import { GroupedVectors } from '../../memory/facts/groupedVectors.js';
import { HnswIndex, dropDeleted } from '../../memory/facts/hnswIndex.js';
import { TurnBudget } from '../../memory/facts/turnBudget.js';
import type { IndexParams, VectorIndex } from '../../memory/facts/vectorIndex.js';
import { type SavedLabel, type SavedNodeVectors, loadNodeVectors, saveNodeVectors, textDigest } from './nodeVectorFile.js';

/** Nodes embedded and indexed in one slice: about 16 hnswlib inserts, a few milliseconds. */
const perSlice = 16;

/** A node's text waiting to be embedded, and the group (its session's) its vector goes in. */
interface Waiting {
  readonly text: string;
  readonly group: string;
}

/** What a NodeVectors makes its vectors with, and where it keeps them between runs. */
export interface NodeVectorsOptions {
  readonly embedder: Embedder;
  readonly params: Omit<IndexParams, 'dimension'>;
  readonly logger: Logger;
  /** The file the vectors are saved to when the graph closes (see nodeVectorFileOf); null: made anew at every opening. */
  readonly file?: string | null;
  /** Whose graph, for the log. */
  readonly owner?: string;
  /** Fewer vectors than this are not saved (32 by default): making them again at the next opening costs less than writing the file. */
  readonly minSaved?: number;
}

const defaultMinSaved = 32;

/** Ends a rebuild of the index that the graph's closing overtook. */
const closedMidway = new Error('the graph closed');

/**
 * The vectors of one graph's nodes, made by the agent's embedder from the text a search reads of
 * each (see GraphRetrieval), in an index of their own (hnswlib's, as L4's facts; grouped by
 * session, so a search within a session compares directly when the session's nodes are few). The
 * graph's structure stays in its store and in memory; the vectors are made from it: when the
 * graph is first searched, and again for each node that is added or whose text changes, in slices
 * between turns of the event loop. Until a node's vector is made, a search finds it by its words
 * and the links that lead to it, as before it had one.
 * With a file, the index is saved there when the graph closes, with each label's node and the
 * digest of the text it was made from, and read back at the next first search: a node whose text
 * is the one its saved vector was made from keeps it, and only the nodes added or changed since
 * (a kill after the save) are embedded again; a file that is missing, damaged or of another
 * embedder is not used, every node embedded anew, with a log line saying why. Removed nodes'
 * slots go as the facts' do (see dropDeleted).
 */
export class NodeVectors {
  readonly #embedder: Embedder;
  readonly #params: IndexParams;
  readonly #logger: Logger;
  readonly #file: string | null;
  readonly #owner: string | undefined;
  readonly #minSaved: number;
  readonly #vectors = new GroupedVectors();
  readonly #labels = new Map<string, number>();
  readonly #ids = new Map<number, string>();
  /** The text each node's vector was made from: the same text again needs no new one. */
  readonly #texts = new Map<string, string>();
  readonly #waiting = new Map<string, Waiting>();
  #nextLabel = 0;
  #index: VectorIndex | null = null;
  #running: Promise<void> | undefined;
  /** Whether the saved file was looked for (once, before the first vector is made). */
  #restored = false;
  /** Counts changes to the index, and the count the file reflects: a close saves only what changed. */
  #changes = 0;
  #savedChanges = 0;
  #closed = false;

  constructor(options: NodeVectorsOptions) {
    this.#embedder = options.embedder;
    this.#params = { ...options.params, dimension: options.embedder.dimension };
    this.#logger = options.logger;
    this.#file = options.file ?? null;
    this.#owner = options.owner;
    this.#minSaved = options.minSaved ?? defaultMinSaved;
  }

  /** Nodes whose vector is not made yet. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Slots of removed nodes' vectors the index still holds (they go with a rebuild, see dropDeleted). */
  get removedSlots(): number {
    return this.#index instanceof HnswIndex ? this.#index.deleted : 0;
  }

  /** Makes node `id`'s vector from `text` (soon, in the background), unless it was made from that text. */
  put(id: string, text: string, sessionId: string | null): void {
    if (this.#closed || (this.#texts.get(id) === text && !this.#waiting.has(id))) return;
    this.remove(id);
    this.#waiting.set(id, { text, group: groupOf({ sessionId }) });
    this.#start();
  }

  remove(id: string): void {
    // Once closed, the index is being saved as it was at the close; a reopen sees this removal.
    if (this.#closed) return;
    this.#waiting.delete(id);
    this.#texts.delete(id);
    const label = this.#labels.get(id);
    if (label === undefined) return;
    this.#labels.delete(id);
    this.#ids.delete(label);
    this.#vectors.remove(label);
    this.#index?.remove(label);
    this.#changes++;
    // Its slot goes with a rebuild once enough have gone (see dropDeleted).
    this.#start();
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

  /** Makes no more vectors (the graph is closed), and saves the index to its file if it changed since it was read or saved; resolves then. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting.clear();
    await this.ready();
    const index = this.#index;
    if (this.#file === null || !(index instanceof HnswIndex) || this.#changes === this.#savedChanges || this.#labels.size < this.#minSaved) return;
    const labels = [...this.#labels].map(([id, label]): SavedLabel => [label, id, textDigest(this.#texts.get(id) ?? ''), this.#vectors.groupOf(label) ?? '']);
    try {
      await saveNodeVectors(index, this.#file, this.#embedder, this.#nextLabel, labels);
      this.#savedChanges = this.#changes;
    } catch (error) {
      this.#logger.error({ owner: this.#owner, error: describeError(error) }, "saving the vectors of a graph's nodes failed; the next opening makes them anew");
    }
  }

  #start(): void {
    if (this.#running !== undefined || this.#closed) return;
    this.#running = this.#run()
      .catch((error: unknown) => {
        if (error === closedMidway) return;
        this.#logger.error({ error: describeError(error) }, "making the vectors of a graph's nodes failed; they are found by their words and links");
        this.#waiting.clear();
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #run(): Promise<void> {
    if (!this.#restored) await this.#restore();
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
        this.#place(id, this.#nextLabel++, waiting, vector);
        this.#index.add(this.#labels.get(id) as number, vector);
        this.#changes++;
      }
      await nextTurn();
    }
    const budget = new TurnBudget(() => (this.#closed ? Promise.reject(closedMidway) : Promise.resolve()));
    if (this.#index !== null) await dropDeleted(this.#index, this.#vectors.byLabel, budget);
  }

  #place(id: string, label: number, waiting: Waiting, vector: Float32Array): void {
    this.#waiting.delete(id);
    this.#labels.set(id, label);
    this.#ids.set(label, id);
    this.#texts.set(id, waiting.text);
    this.#vectors.add(label, waiting.group, vector);
  }

  /** Takes the vectors saved in the file for the nodes whose text they were made from (see the class); the others wait to be embedded. */
  async #restore(): Promise<void> {
    this.#restored = true;
    if (this.#file === null) return;
    const saved = await loadNodeVectors(this.#file, this.#embedder, this.#params, this.#logger);
    if (saved === null || this.#closed) return;
    if (!('index' in saved)) {
      this.#logger[saved.missing === true ? 'info' : 'warn'](
        { owner: this.#owner, file: this.#file, reason: saved.stale, nodes: this.#waiting.size },
        "the saved vectors of a graph's nodes are not used: every node is embedded anew",
      );
      return;
    }
    const dropped = this.#adopt(saved);
    const level = dropped === 0 && this.#waiting.size === 0 ? 'debug' : 'warn';
    this.#logger[level](
      { owner: this.#owner, file: this.#file, restored: this.#labels.size, dropped, embedded: this.#waiting.size },
      dropped === 0 && this.#waiting.size === 0
        ? "restored the vectors of a graph's nodes from their file"
        : "the saved vectors of a graph's nodes are stale (nodes added, changed or removed since the save): those of the nodes changed since are dropped and made anew",
    );
  }

  /** Adopts `saved` as the index: each label whose node waits with the text it was made from keeps its vector; the others are removed. Returns how many were. */
  #adopt(saved: SavedNodeVectors): number {
    this.#index = saved.index;
    this.#nextLabel = saved.nextLabel;
    let dropped = 0;
    for (const [label, id, digest, group] of saved.labels) {
      const waiting = this.#waiting.get(id);
      if (waiting !== undefined && waiting.group === group && textDigest(waiting.text) === digest) {
        this.#place(id, label, waiting, saved.index.vectorOf(label));
      } else {
        saved.index.remove(label);
        dropped++;
      }
    }
    this.#changes = dropped;
    this.#savedChanges = 0;
    return dropped;
  }
}

import type { HierarchicalNSW } from 'hnswlib-node';

/** How an index is built and searched (hnswlib's M, efConstruction and ef) and how much room it starts with. */
export interface IndexParams {
  readonly dimension: number;
  readonly m: number;
  readonly efConstruction: number;
  readonly efSearch: number;
  readonly initialCapacity: number;
}

export interface Neighbour {
  readonly label: number;
  /** Cosine to the query. */
  readonly similarity: number;
}

type Hnswlib = typeof import('hnswlib-node');

let hnswlib: Promise<Hnswlib> | undefined;

/**
 * hnswlib-node, loaded on first use: `import 'troupe'` must not load a native addon, and an agent
 * with no facts never needs it. It is a CommonJS module, so its exports are its default's.
 */
function loadHnswlib(): Promise<Hnswlib> {
  hnswlib ??= import('hnswlib-node').then((module) => module.default);
  return hnswlib;
}

/** What a long build gives the event loop turns by (see TurnBudget). */
export interface SliceBudget {
  readonly spent: boolean;
  pause(): Promise<void>;
}

/**
 * An hnswlib HNSW index over unit vectors (cosine space), labelled by fact number. What this
 * wrapper takes care of (see LIBRARY-NOTES "hnswlib-node 3"): `addPoint` wants a plain array;
 * the index is grown (doubled) before it is full, since adding past its capacity throws; a
 * removed vector is only marked deleted, and its slot is never reused: hnswlib's reuse rewires
 * the links of each of the slot's neighbours, about ten times the work of a new insert (5.5 ms
 * against 0.5–1 ms at 4,000 vectors of 384 numbers), so the index is rebuilt without its deleted
 * vectors instead (see build and adopt), in slices; `ef` is not saved with the file, so it is set
 * again after every read; and `k` may not exceed the capacity.
 */
export class VectorIndex {
  /** How it was made: a rebuild is made the same way. */
  readonly params: IndexParams;
  #index: HierarchicalNSW;
  #live: number;
  /** Counts adds and removes, so a rebuild knows whether the index changed while it ran. */
  #changes = 0;

  private constructor(params: IndexParams, index: HierarchicalNSW, live: number) {
    this.params = params;
    this.#index = index;
    this.#live = live;
  }

  /** An empty index with room for `initialCapacity` vectors. */
  static async create(params: IndexParams): Promise<VectorIndex> {
    const { HierarchicalNSW } = await loadHnswlib();
    const index = new HierarchicalNSW('cosine', params.dimension);
    index.initIndex({ maxElements: params.initialCapacity, m: params.m, efConstruction: params.efConstruction, allowReplaceDeleted: true });
    index.setEf(params.efSearch);
    return new VectorIndex(params, index, 0);
  }

  /** The index saved in `file`, which holds `live` vectors that are not deleted; rejects when hnswlib cannot read it. */
  static async read(file: string, params: IndexParams, live: number): Promise<VectorIndex> {
    const { HierarchicalNSW } = await loadHnswlib();
    const index = new HierarchicalNSW('cosine', params.dimension);
    await index.readIndex(file, true);
    index.setEf(params.efSearch);
    return new VectorIndex(params, index, live);
  }

  /**
   * A new index of `vectors` (label and vector), each inserted within a slice of `budget`, with
   * room for all of them; the caller adopts it (see adopt) or drops it.
   */
  static async build(params: IndexParams, vectors: ReadonlyMap<number, Float32Array>, budget: SliceBudget): Promise<VectorIndex> {
    const capacity = Math.max(params.initialCapacity, 2 ** Math.ceil(Math.log2(Math.max(1, vectors.size))));
    const built = await VectorIndex.create({ ...params, initialCapacity: capacity });
    for (const [label, vector] of vectors) {
      if (budget.spent) await budget.pause();
      built.add(label, vector);
    }
    return built;
  }

  /** Vectors in the index that are not deleted. */
  get size(): number {
    return this.#live;
  }

  /** Vectors marked deleted whose slots the index still holds (they go only with a rebuild). */
  get deleted(): number {
    return this.#index.getCurrentCount() - this.#live;
  }

  /** A mark that `adopt` compares, to refuse a rebuild made from vectors the index no longer holds. */
  get changes(): number {
    return this.#changes;
  }

  /** Adds `vector` under `label`, a label never added before, in a new slot. */
  add(label: number, vector: Float32Array): void {
    if (this.#index.getCurrentCount() >= this.#index.getMaxElements()) this.#index.resizeIndex(this.#index.getMaxElements() * 2);
    this.#index.addPoint(Array.from(vector), label, false);
    this.#live += 1;
    this.#changes += 1;
  }

  /** Marks the vector of `label` deleted: searches skip it. */
  remove(label: number): void {
    this.#index.markDelete(label);
    this.#live -= 1;
    this.#changes += 1;
  }

  /**
   * Takes over the graph of `rebuilt`, a rebuild of this index's live vectors made while it
   * was at `changes` (see build), so every holder of this index sees the rebuild; false (and
   * nothing changed) when this index changed since. `rebuilt` is not to be used afterwards.
   */
  adopt(rebuilt: VectorIndex, changes: number): boolean {
    if (changes !== this.#changes || rebuilt.size !== this.#live) return false;
    const retired = this.#index;
    this.#index = rebuilt.#index;
    // hnswlib frees a graph only once its JS object is collected, maybe much later; made anew with one slot, it is freed now.
    retired.initIndex({ maxElements: 1 });
    return true;
  }

  /** Up to `k` nearest vectors to `query` whose label passes `filter`, nearest first. */
  nearest(query: Float32Array, k: number, filter?: (label: number) => boolean): Neighbour[] {
    const count = Math.min(k, this.#live, this.#index.getMaxElements());
    if (count <= 0) return [];
    const { neighbors, distances } = this.#index.searchKnn(Array.from(query), count, filter);
    return neighbors.map((label, i) => ({ label, similarity: 1 - (distances[i] ?? 1) }));
  }

  /** Writes the index to `file` (hnswlib's format; the caller makes the write atomic). */
  async write(file: string): Promise<void> {
    await this.#index.writeIndex(file);
  }
}

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

/**
 * An hnswlib HNSW index over unit vectors (cosine space), labelled by fact number. What this
 * wrapper takes care of (see LIBRARY-NOTES "hnswlib-node 3"): `addPoint` wants a plain array;
 * the index is grown (doubled) before it is full, since adding past its capacity throws; a
 * removed vector is only marked deleted, and its slot is reused by the next add; `ef` is not
 * saved with the file, so it is set again after every read; and `k` may not exceed the capacity.
 */
export class VectorIndex {
  readonly #index: HierarchicalNSW;
  #live: number;

  private constructor(index: HierarchicalNSW, live: number) {
    this.#index = index;
    this.#live = live;
  }

  /** An empty index with room for `initialCapacity` vectors. */
  static async create(params: IndexParams): Promise<VectorIndex> {
    const { HierarchicalNSW } = await loadHnswlib();
    const index = new HierarchicalNSW('cosine', params.dimension);
    index.initIndex({ maxElements: params.initialCapacity, m: params.m, efConstruction: params.efConstruction, allowReplaceDeleted: true });
    index.setEf(params.efSearch);
    return new VectorIndex(index, 0);
  }

  /** The index saved in `file`, which holds `live` vectors that are not deleted; rejects when hnswlib cannot read it. */
  static async read(file: string, params: IndexParams, live: number): Promise<VectorIndex> {
    const { HierarchicalNSW } = await loadHnswlib();
    const index = new HierarchicalNSW('cosine', params.dimension);
    await index.readIndex(file, true);
    index.setEf(params.efSearch);
    return new VectorIndex(index, live);
  }

  /** Vectors in the index that are not deleted. */
  get size(): number {
    return this.#live;
  }

  /** Adds (or reuses the slot of a deleted vector for) `vector` under `label`. */
  add(label: number, vector: Float32Array): void {
    // Only a full index with no deleted slot to reuse grows; with one, the doubling is early, never wrong.
    if (this.#index.getCurrentCount() >= this.#index.getMaxElements()) this.#index.resizeIndex(this.#index.getMaxElements() * 2);
    this.#index.addPoint(Array.from(vector), label, true);
    this.#live += 1;
  }

  /** Marks the vector of `label` deleted: searches skip it, and its slot is reused. */
  remove(label: number): void {
    this.#index.markDelete(label);
    this.#live -= 1;
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

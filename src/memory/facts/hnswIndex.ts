import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { HierarchicalNSW, Hnswlib } from './hnswlibApi.js';
import type { IndexParams, Neighbour, VectorIndex } from './vectorIndex.js';

/** A specifier TypeScript leaves alone: where hnswlib-node did not build, its declarations are absent too (see hnswlibApi.ts). */
const hnswlibPackage = 'hnswlib-node';

let hnswlib: Promise<Hnswlib | { error: unknown }> | undefined;
/** The loggers already told that hnswlib-node did not load: each is told once. */
const told = new WeakSet<Logger>();

/**
 * hnswlib-node, loaded on first use: `import 'troupe'` must not load a native addon, and an agent
 * with no facts never needs it. It is an optional dependency: without a C++ compiler its build
 * fails and npm leaves it out, and npm 12 skips its build (npm 11 warns) unless the project
 * allows its install script; then this is null and L4 searches exactly, which `logger` hears
 * once, with the fix.
 * It is a CommonJS module, so its exports are its default's.
 */
export async function loadHnswlib(logger: Logger): Promise<Hnswlib | null> {
  hnswlib ??= import(hnswlibPackage).then(
    (module: { default: Hnswlib }) => module.default,
    (error: unknown) => ({ error }),
  );
  const loaded = await hnswlib;
  if (!('error' in loaded)) return loaded;
  if (!told.has(logger)) {
    told.add(logger);
    logger.warn(
      { error: describeError(loaded.error) },
      'hnswlib-node did not load, so L4 searches compare each query with every fact (exact, and slower past a few thousand facts an agent). ' +
        'To use hnswlib: install a C++ compiler, allow its install script in your package.json ("allowScripts": { "hnswlib-node": true }, npm 11 and later), then run npm rebuild hnswlib-node',
    );
  }
  return null;
}

/**
 * An hnswlib HNSW index over unit vectors (cosine space), labelled by fact number. What this
 * wrapper takes care of (see LIBRARY-NOTES "hnswlib-node 3"): `addPoint` wants a plain array;
 * the index is grown (doubled) before it is full, since adding past its capacity throws; a
 * removed vector is only marked deleted, and its slot is reused by the next add; `ef` is not
 * saved with the file, so it is set again after every read; and `k` may not exceed the capacity.
 */
export class HnswIndex implements VectorIndex {
  readonly #index: HierarchicalNSW;
  #live: number;

  private constructor(index: HierarchicalNSW, live: number) {
    this.#index = index;
    this.#live = live;
  }

  /** An empty index with room for `initialCapacity` vectors. */
  static create({ HierarchicalNSW }: Hnswlib, params: IndexParams): HnswIndex {
    const index = new HierarchicalNSW('cosine', params.dimension);
    index.initIndex({ maxElements: params.initialCapacity, m: params.m, efConstruction: params.efConstruction, allowReplaceDeleted: true });
    index.setEf(params.efSearch);
    return new HnswIndex(index, 0);
  }

  /** The index saved in `file`, which holds `live` vectors that are not deleted; rejects when hnswlib cannot read it. */
  static async read({ HierarchicalNSW }: Hnswlib, file: string, params: IndexParams, live: number): Promise<HnswIndex> {
    const index = new HierarchicalNSW('cosine', params.dimension);
    await index.readIndex(file, true);
    index.setEf(params.efSearch);
    return new HnswIndex(index, live);
  }

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

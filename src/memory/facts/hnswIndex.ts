import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { HierarchicalNSW, Hnswlib } from './hnswlibApi.js';
import { type IndexParams, type Neighbour, type SliceBudget, type VectorIndex, capacityFor, fill } from './vectorIndex.js';

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
 * removed vector is only marked deleted, and its slot is never reused: hnswlib's reuse rewires
 * the links of each of the slot's neighbours, about ten times the work of a new insert (5.5 ms
 * against 0.5–1 ms at 4,000 vectors of 384 numbers), so the index is rebuilt without its deleted
 * vectors instead (see rebuilt and adopt), in slices; `ef` is not saved with the file, so it is
 * set again after every read; and `k` may not exceed the capacity.
 */
export class HnswIndex implements VectorIndex {
  readonly #hnswlib: Hnswlib;
  /** How it was made: a rebuild is made the same way. */
  readonly #params: IndexParams;
  #index: HierarchicalNSW;
  #live: number;
  /** Counts adds and removes, so a rebuild knows whether the index changed while it ran. */
  #changes = 0;

  private constructor(hnswlib: Hnswlib, params: IndexParams, index: HierarchicalNSW, live: number) {
    this.#hnswlib = hnswlib;
    this.#params = params;
    this.#index = index;
    this.#live = live;
  }

  /** An empty index with room for `initialCapacity` vectors. */
  static create(hnswlib: Hnswlib, params: IndexParams): HnswIndex {
    const index = new hnswlib.HierarchicalNSW('cosine', params.dimension);
    index.initIndex({ maxElements: params.initialCapacity, m: params.m, efConstruction: params.efConstruction, allowReplaceDeleted: true });
    index.setEf(params.efSearch);
    return new HnswIndex(hnswlib, params, index, 0);
  }

  /** The index saved in `file`, which holds `live` vectors that are not deleted; rejects when hnswlib cannot read it. */
  static async read(hnswlib: Hnswlib, file: string, params: IndexParams, live: number): Promise<HnswIndex> {
    const index = new hnswlib.HierarchicalNSW('cosine', params.dimension);
    await index.readIndex(file, true);
    index.setEf(params.efSearch);
    return new HnswIndex(hnswlib, params, index, live);
  }

  /**
   * A new index made as this one was, of `vectors` (label and vector), each inserted within a
   * slice of `budget`, with room for all of them; the caller adopts it (see adopt) or drops it.
   */
  async rebuilt(vectors: ReadonlyMap<number, Float32Array>, budget: SliceBudget): Promise<HnswIndex> {
    const built = HnswIndex.create(this.#hnswlib, { ...this.#params, initialCapacity: capacityFor(this.#params, vectors.size) });
    await fill(built, vectors, budget);
    return built;
  }

  get size(): number {
    return this.#live;
  }

  /** Vectors marked deleted whose slots the index still holds (they go only with a rebuild). */
  get deleted(): number {
    return this.#index.getCurrentCount() - this.#live;
  }

  /** The vector stored under `label`, unit length (the cosine space keeps vectors normalised); hnswlib throws for a label it does not hold. */
  vectorOf(label: number): Float32Array {
    return Float32Array.from(this.#index.getPoint(label));
  }

  /** A mark that `adopt` compares, to refuse a rebuild made from vectors the index no longer holds. */
  get changes(): number {
    return this.#changes;
  }

  /** Adds `vector` under `label`, a label never added before, in a new slot. */
  add(label: number, vector: Float32Array): void {
    // Read back from a file, an index has room for what it held, none when that was nothing.
    const room = this.#index.getMaxElements();
    if (this.#index.getCurrentCount() >= room) this.#index.resizeIndex(Math.max(this.#params.initialCapacity, room * 2));
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
   * was at `changes` (see rebuilt), so every holder of this index sees the rebuild; false (and
   * nothing changed) when this index changed since. `rebuilt` is not to be used afterwards.
   */
  adopt(rebuilt: HnswIndex, changes: number): boolean {
    if (changes !== this.#changes || rebuilt.size !== this.#live) return false;
    const retired = this.#index;
    this.#index = rebuilt.#index;
    // hnswlib frees a graph only once its JS object is collected, maybe much later; made anew with one slot, it is freed now.
    retired.initIndex({ maxElements: 1 });
    return true;
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

/**
 * Rebuilds hnswlib's `index` without the vectors it holds only as deleted (see HnswIndex), once
 * they are as many as its live ones, from `vectors` (each live one by label), inserting in slices
 * of `budget`; an exact index frees a removed vector at once and is left alone. Waiting for as
 * many as the live ones, a rebuild costs about one insert per removed vector (at a quarter, four),
 * and the index holds at most twice the slots of its live vectors. The caller keeps the index
 * from changing meanwhile; a rebuild it changed under is dropped.
 */
export async function dropDeleted(index: VectorIndex, vectors: ReadonlyMap<number, Float32Array>, budget: SliceBudget): Promise<void> {
  if (!(index instanceof HnswIndex) || index.deleted === 0 || index.deleted < index.size) return;
  const changes = index.changes;
  const rebuilt = await index.rebuilt(vectors, budget);
  // Its pause waits for an index file's save, which reads the graph being replaced.
  await budget.pause();
  index.adopt(rebuilt, changes);
}

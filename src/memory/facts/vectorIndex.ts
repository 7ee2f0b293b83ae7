/** How an index is built and searched (hnswlib's M, efConstruction and ef, or exact search) and how much room it starts with. */
export interface IndexParams {
  readonly dimension: number;
  readonly m: number;
  readonly efConstruction: number;
  readonly efSearch: number;
  readonly initialCapacity: number;
  /** Compare a query with every vector instead of searching hnswlib's graph. */
  readonly exactSearch: boolean;
}

export interface Neighbour {
  readonly label: number;
  /** Cosine to the query. */
  readonly similarity: number;
}

/** The nearest-neighbour index over an agent's fact vectors (unit length, cosine), labelled by fact number. */
export interface VectorIndex {
  /** Vectors in the index that are not removed. */
  readonly size: number;
  /** Adds `vector` under `label`. */
  add(label: number, vector: Float32Array): void;
  /** Removes the vector of `label`: searches skip it. */
  remove(label: number): void;
  /** Up to `k` nearest vectors to `query` whose label passes `filter`, nearest first. */
  nearest(query: Float32Array, k: number, filter?: (label: number) => boolean): Neighbour[];
}

/** What a long build gives the event loop turns by (see TurnBudget). */
export interface SliceBudget {
  readonly spent: boolean;
  pause(): Promise<void>;
}

/** The room an index built for `count` vectors starts with: a power of two, at least `initialCapacity`. */
export function capacityFor(params: IndexParams, count: number): number {
  return Math.max(params.initialCapacity, 2 ** Math.ceil(Math.log2(Math.max(1, count))));
}

/** Adds `vectors` (label and vector) to `index`, each within a slice of `budget`. */
export async function fill(index: VectorIndex, vectors: ReadonlyMap<number, Float32Array>, budget: SliceBudget): Promise<void> {
  for (const [label, vector] of vectors) {
    if (budget.spent) await budget.pause();
    index.add(label, vector);
  }
}

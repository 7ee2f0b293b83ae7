import type { Logger } from '../../logger.js';
import { ExactIndex } from './exactIndex.js';
import { HnswIndex, loadHnswlib } from './hnswIndex.js';
import { type IndexParams, type SliceBudget, type VectorIndex, capacityFor, fill } from './vectorIndex.js';

/** An empty index: hnswlib's graph unless `exactSearch` is set or hnswlib-node cannot load, then exact search. */
export async function createVectorIndex(params: IndexParams, logger: Logger): Promise<VectorIndex> {
  const hnswlib = params.exactSearch ? null : await loadHnswlib(logger);
  return hnswlib === null ? new ExactIndex() : HnswIndex.create(hnswlib, params);
}

/**
 * A new index (as createVectorIndex makes) of `vectors` (label and vector), with room for all of
 * them, each inserted within a slice of `budget`: thousands of inserts at once would hold the
 * event loop for seconds while other agents run.
 */
export async function buildVectorIndex(
  params: IndexParams,
  vectors: ReadonlyMap<number, Float32Array>,
  budget: SliceBudget,
  logger: Logger,
): Promise<VectorIndex> {
  const index = await createVectorIndex({ ...params, initialCapacity: capacityFor(params, vectors.size) }, logger);
  await fill(index, vectors, budget);
  return index;
}

import type { Logger } from '../../logger.js';
import { ExactIndex } from './exactIndex.js';
import { HnswIndex, loadHnswlib } from './hnswIndex.js';
import type { IndexParams, VectorIndex } from './vectorIndex.js';

/** An empty index: hnswlib's graph unless `exactSearch` is set or hnswlib-node cannot load, then exact search. */
export async function createVectorIndex(params: IndexParams, logger: Logger): Promise<VectorIndex> {
  const hnswlib = params.exactSearch ? null : await loadHnswlib(logger);
  return hnswlib === null ? new ExactIndex() : HnswIndex.create(hnswlib, params);
}

import { TroupeError } from '../../errors.js';
import type { Embedder } from '../embedding/embedder.js';
import { halfPrecision } from '../embedding/vectors.js';

/** `vector` when it is one of `embedder`'s dimension; an `internal` error naming the embedder when not. */
function checked(embedder: Embedder, vector: Float32Array | undefined, count: number): Float32Array {
  if (vector?.length === embedder.dimension) return vector;
  throw new TroupeError('internal', `embedder ${embedder.id} returned ${count} vectors, or one not of its dimension ${embedder.dimension}`);
}

/** `embedder`'s vector for `text` (a query's, or a fact's before it is stored); null without an embedder. */
export async function embedOne(embedder: Embedder | null, text: string): Promise<Float32Array | null> {
  if (embedder === null) return null;
  const vectors = await embedder.embed([text]);
  return checked(embedder, vectors[0], vectors.length);
}

/** `embedder`'s vectors for `texts`, in one call, at the precision they are stored at (see halfPrecision); null without an embedder. */
export async function embedMany(embedder: Embedder | null, texts: readonly string[]): Promise<Float32Array[] | null> {
  if (embedder === null) return null;
  const vectors = await embedder.embed(texts);
  return texts.map((_, i) => halfPrecision(checked(embedder, vectors[i], vectors.length)));
}

import { dot } from '../embedding/vectors.js';
import type { Neighbour } from './vectorIndex.js';

/** `vector` scaled to length 1 (as hnswlib's cosine space stores it); the zero vector stays zero. */
export function unit(vector: Float32Array): Float32Array {
  const length = Math.sqrt(dot(vector, vector));
  const scaled = new Float32Array(vector.length);
  if (length === 0) return scaled;
  // A loop rather than `map`: a search compares every candidate's group with a query made unit here, many times a compression.
  for (let i = 0; i < vector.length; i++) scaled[i] = (vector[i] as number) / length;
  return scaled;
}

/**
 * Up to `k` of `labels` whose unit vectors (`vectorOf`) are nearest to the unit vector
 * `direction`, nearest first, by comparing it with each: exact, and linear in the candidates.
 */
export function nearestByComparison(
  direction: Float32Array,
  k: number,
  labels: Iterable<number>,
  vectorOf: (label: number) => Float32Array | undefined,
): Neighbour[] {
  const best: Neighbour[] = [];
  for (const label of labels) {
    const vector = vectorOf(label);
    if (vector === undefined) continue;
    const similarity = dot(direction, vector);
    if (best.length === k && similarity <= (best[k - 1]?.similarity ?? -Infinity)) continue;
    // Insertion into a list of at most k, kept nearest first (k is small: tens at most).
    let at = best.length;
    while (at > 0 && (best[at - 1]?.similarity ?? Infinity) < similarity) at--;
    best.splice(at, 0, { label, similarity });
    if (best.length > k) best.pop();
  }
  return best;
}

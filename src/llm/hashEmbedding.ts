/** Dimensions of the offline embedding: enough to separate topics, small enough to be cheap. */
export const hashEmbeddingDims = 256;

/**
 * A deterministic embedding with no model: words and character trigrams hashed into a fixed
 * number of buckets (signed, so collisions cancel rather than pile up), L2-normalised. Texts
 * that share words land near each other, which is what offline retrieval needs.
 */
export function hashEmbedding(text: string, dims = hashEmbeddingDims): number[] {
  const vector = new Array<number>(dims).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    add(vector, word, 1);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, padded.slice(i, i + 3), 0.5);
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

function add(vector: number[], feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const index = hash % vector.length;
  vector[index] = (vector[index] ?? 0) + (hash >>> 31 === 0 ? weight : -weight);
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

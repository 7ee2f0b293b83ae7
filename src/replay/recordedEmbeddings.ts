import type { Redactor } from '../task/index.js';
import { canonicalJson, digestOf } from './canonical.js';

/**
 * An embedder as a recording sees it (the memory layer's `Embedder`, by its shape: replay sits
 * below memory).
 */
export interface RecordableEmbedder {
  readonly id: string;
  readonly dimension: number;
  readonly deterministic?: boolean;
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** The key of an embedding call: its embedder and its texts, redacted, so a replay (where a secret reads `[REDACTED]`) finds it. */
export function embeddingDigest(embedderId: string, texts: readonly string[], redactor: Redactor): string {
  return digestOf(canonicalJson([embedderId, texts.map((text) => redactor.text(text))]));
}

/** A vector as a recording keeps it: its float32 bytes, little-endian, as base64. */
export function vectorText(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] ?? 0, true);
  return Buffer.from(bytes).toString('base64');
}

/** The vector of `text` (see `vectorText`); undefined when it is not one of `dimension` numbers. */
export function vectorOf(text: string, dimension: number): Float32Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== dimension * 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const vector = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/**
 * Turns texts into vectors for L4 memory. Implemented offline by `HashedNgramEmbedder` and, over
 * any OpenAI-compatible `/v1/embeddings`, by `OpenAIEmbeddings` (in the llm layer, which satisfies
 * this interface by its shape without importing memory). Vectors of two embedders never mix: a
 * fact store records `id` and `dimension` and refuses another embedder (`embedder_mismatch`).
 */
export interface Embedder {
  /** Names the embedder and its model, e.g. 'hashed-ngram-v1-384' or 'openai:text-embedding-3-small'; stored with every index. */
  readonly id: string;
  readonly dimension: number;
  /** The same texts always give the same vectors, computed here (no model, no network): a recorded run keeps none of them (docs/replay.md). */
  readonly deterministic?: boolean;
  /** One L2-normalised vector per text, in order. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

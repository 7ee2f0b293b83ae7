import { z } from 'zod';
import { defaultHashedNgramDimension, hashedNgramScheme, hashedNgramVector } from '../../hashedNgramVector.js';
import { parseOrThrow } from '../../task/index.js';
import type { Embedder } from './embedder.js';

const HashedNgramOptionsSchema = z
  .object({
    /** Length of every vector (384 by default). */
    dimension: z.number().int().min(16).max(4096).default(defaultHashedNgramDimension),
  })
  .strict();

export type HashedNgramEmbedderOptions = z.input<typeof HashedNgramOptionsSchema>;

/**
 * The offline embedder, the default when no embedding model is configured: hashed word unigrams,
 * bigrams and character 3–5-grams (see `hashedNgramVector`), deterministic and needing no
 * download. It captures shared words and spellings, not meaning: "dark mode" is near "dark theme",
 * but "car" is not near "automobile".
 * @example
 * const embedder = new HashedNgramEmbedder();           // 384 dimensions, id 'hashed-ngram-v1-384'
 * const [vector] = await embedder.embed(['the user prefers dark mode']);
 */
export class HashedNgramEmbedder implements Embedder {
  readonly id: string;
  readonly deterministic = true;
  readonly dimension: number;

  /** Throws a ValidationError naming `dimension` when it is not a whole number from 16 to 4096. */
  constructor(options: HashedNgramEmbedderOptions = {}) {
    this.dimension = parseOrThrow(HashedNgramOptionsSchema, options, 'HashedNgramEmbedder').dimension;
    this.id = `${hashedNgramScheme}-${this.dimension}`;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => hashedNgramVector(text, this.dimension)));
  }
}

import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { z } from 'zod';
import { defaultHashedNgramDimension, hashedNgramVector } from '../../hashedNgramVector.js';
import { estimateTokens } from './completionBodies.js';

/** The part of an embeddings request body the local server understands. */
export const WireEmbeddingsRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.string()).min(1)]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.number().int().positive().max(4096).optional(),
  })
  .loose();

export type WireEmbeddingsRequest = z.infer<typeof WireEmbeddingsRequestSchema>;

/** An embeddings response whose vectors may be base64 strings, as `encoding_format: 'base64'` asks. */
export type EmbeddingsBody = Omit<CreateEmbeddingResponse, 'data'> & {
  data: (Omit<CreateEmbeddingResponse['data'][number], 'embedding'> & { embedding: number[] | string })[];
};

/** What a scripted call may change about the answer: vectors of another length, or exactly these vectors. */
export interface EmbeddingOverride {
  readonly dimension?: number | undefined;
  readonly vectors?: readonly (readonly number[])[] | undefined;
}

/**
 * The hashed n-gram vectors (see hashedNgramVector, the offline embedder's) of each input, in
 * OpenAI's response shape: `dimensions` long when the request asks (384 by default).
 */
export function embeddingsOf(body: WireEmbeddingsRequest, override: EmbeddingOverride = {}): EmbeddingsBody {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
  const dimension = override.dimension ?? body.dimensions ?? defaultHashedNgramDimension;
  const vectors = override.vectors ?? inputs.map((text) => Array.from(hashedNgramVector(text, dimension)));
  return {
    object: 'list',
    model: body.model,
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: body.encoding_format === 'base64' ? float32Base64(vector) : [...vector],
    })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** OpenAI's base64 encoding: the little-endian float32 bytes of the vector (what the SDK asks for by default). */
function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

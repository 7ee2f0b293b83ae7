import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { z } from 'zod';
import { hashEmbedding, hashEmbeddingDims } from '../hashEmbedding.js';
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

/** Hashed embeddings (see hashEmbedding) for each input, in OpenAI's response shape. */
export function embeddingsOf(body: WireEmbeddingsRequest): EmbeddingsBody {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    object: 'list',
    model: body.model,
    data: inputs.map((text, index) => {
      const vector = hashEmbedding(text, body.dimensions ?? hashEmbeddingDims);
      return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? float32Base64(vector) : vector };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** OpenAI's base64 encoding: the little-endian float32 bytes of the vector (what the SDK asks for by default). */
function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

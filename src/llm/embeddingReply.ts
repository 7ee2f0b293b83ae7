import { z } from 'zod';

/**
 * A reply to an embeddings call that is not one: a web page (the SDK hands back a body that is
 * not JSON as text), JSON without `data[].embedding`, or a different number of vectors than texts
 * sent. It fails the call and is not retried: the same URL gives the same answer.
 */
export class NotEmbeddingsError extends Error {
  override readonly name = 'NotEmbeddingsError';
}

const EmbeddingsReplySchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

const shownChars = 120;

/** The vectors of an embeddings reply in input order, or NotEmbeddingsError saying what came instead. */
export function vectorsOfReply(reply: unknown, inputs: number): number[][] {
  const parsed = EmbeddingsReplySchema.safeParse(reply);
  if (!parsed.success) {
    const shown = (typeof reply === 'string' ? reply : ((JSON.stringify(reply) as string | undefined) ?? String(reply)))
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, shownChars);
    throw new NotEmbeddingsError(`the server's answer is not a list of embeddings (data[].embedding), ${shown === '' ? 'but empty' : `starting "${shown}"`}`);
  }
  const vectors = [...parsed.data.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
  if (vectors.length !== inputs) throw new NotEmbeddingsError(`the server returned ${vectors.length} embeddings for ${inputs} texts`);
  return vectors;
}

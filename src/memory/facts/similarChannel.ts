import type { Embedder } from '../embedding/embedder.js';
import { dot } from '../embedding/vectors.js';
import { embedOne } from './factEmbedding.js';
import { factIdOf, groupsVisibleTo, labelOf } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { RankedChannels } from './hybridHits.js';
import { unit } from './unitVectors.js';
import { wordCosine } from './wordOverlap.js';

// The similarity channel of a hybrid search (see fuseChannels): what `similarity` means in a hit.

/** The similarity channel without an embedder: word overlap, best first, and any other fact's word-set cosine. */
export function byWordOverlap(set: FactSet, text: string, depth: number, admits: (id: string) => boolean): Omit<RankedChannels, 'keyword'> {
  return {
    similar: set.words?.nearest(text, depth, admits) ?? [],
    similarityOf: (id) => wordCosine(text, set.get(id)?.text ?? ''),
  };
}

/**
 * The vector channel: the query's nearest vectors among the groups `sessionId` may see, and the
 * cosine of any other fact from the JS copy of its vector (-1 for one without a vector); null when
 * there is no embedder or no vector yet.
 */
export async function byVectors(
  set: FactSet,
  embedder: Embedder | null,
  text: string,
  depth: number,
  sessionId: string | null | undefined,
): Promise<Omit<RankedChannels, 'keyword'> | null> {
  const vector = await embedOne(embedder, text);
  const index = await set.index;
  if (vector === null || index === null) return null;
  const direction = unit(vector);
  return {
    similar: set.vectors.nearest(index, vector, depth, groupsVisibleTo(sessionId)).map((hit) => ({ id: factIdOf(hit.label), similarity: hit.similarity })),
    similarityOf: (id) => {
      const stored = set.vectors.vectorOf(labelOf(id));
      return stored === undefined ? -1 : dot(direction, stored);
    },
  };
}

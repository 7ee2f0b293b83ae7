import type { Embedder } from '../embedding/embedder.js';
import { dot } from '../embedding/vectors.js';
import { embedOne } from './factEmbedding.js';
import { factIdOf, groupsVisibleTo, labelOf } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { RankedChannels } from './hybridHits.js';
import { unit } from './unitVectors.js';
import { wordCosine } from './wordOverlap.js';
import { nodeKey } from './graphChannel.js';
import type { RetrievalGraph } from './retrievalGraph.js';

// The similarity channel of a hybrid search (see fuseChannels): what `similarity` means in a hit.

/** The similarity channel without an embedder: word overlap, best first, and any other fact's word-set cosine. */
export function byWordOverlap(set: FactSet, text: string, depth: number, admits: (id: string) => boolean): Omit<RankedChannels, 'keyword'> {
  return {
    similar: set.words?.nearest(text, depth, admits) ?? [],
    similarityOf: (id) => wordCosine(text, set.get(id)?.text ?? ''),
  };
}

/** The vector channel as a search ranks it, and the cosine of a node a search shows (undefined when the node has no vector). */
export type SimilarChannel = Omit<RankedChannels, 'keyword'> & { readonly nodeSimilarity: (nodeId: string) => number | undefined };

/**
 * The vector channel: the query's nearest vectors among the groups `sessionId` may see, the facts'
 * and (with a graph) its nodes', and the cosine of any other fact from the JS copy of its vector
 * (-1 for one without a vector) or node; null when there is no embedder, or no vector yet.
 */
export async function byVectors(
  set: FactSet,
  embedder: Embedder | null,
  text: string,
  depth: number,
  sessionId: string | null | undefined,
  graph: RetrievalGraph | null,
): Promise<SimilarChannel | null> {
  const vector = await embedOne(embedder, text);
  const index = await set.index;
  if (vector === null || (index === null && graph === null)) return null;
  const direction = unit(vector);
  const facts =
    index === null
      ? []
      : set.vectors.nearest(index, vector, depth, groupsVisibleTo(sessionId)).map((hit) => ({ id: factIdOf(hit.label), similarity: hit.similarity }));
  const nodes = (graph?.similar(direction, depth, sessionId) ?? []).map((hit) => ({ id: nodeKey(hit.id), similarity: hit.similarity }));
  return {
    similar: nodes.length === 0 ? facts : [...facts, ...nodes].sort((a, b) => b.similarity - a.similarity).slice(0, depth),
    similarityOf: (id) => {
      const stored = set.vectors.vectorOf(labelOf(id));
      return stored === undefined ? -1 : dot(direction, stored);
    },
    nodeSimilarity: (nodeId) => graph?.similarity(direction, nodeId),
  };
}

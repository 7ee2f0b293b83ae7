import type { Embedder } from '../embedding/embedder.js';
import { type FactHit, visibleTo } from './factSchema.js';
import type { FactSet } from './factSet.js';
import { type Floors, candidateDepth, fuseChannels } from './hybridHits.js';
import { byVectors, byWordOverlap } from './similarChannel.js';

/** A search of L4 as checked: its text, how many hits, whose facts it reads (see visibleTo), and the floors a hit must pass. */
export interface FactQuery {
  readonly text: string;
  readonly k: number;
  readonly sessionId: string | null | undefined;
  readonly floors: Floors;
}

/**
 * The `k` facts of `set` a reader of the query's session may see that best match its text by both
 * channels (vectors, or word overlap without an embedder, and BM25), fused by reciprocal rank,
 * best first. `stillOpen` is asked once the query is embedded, before anything is ranked: it
 * throws when the store was closed meanwhile.
 */
export async function nearestFacts(set: FactSet, embedder: Embedder | null, query: FactQuery, stillOpen: () => void): Promise<FactHit[]> {
  const { text, k, sessionId, floors } = query;
  if (set.size === 0) return [];
  const depth = candidateDepth(k);
  const admits = (id: string): boolean => {
    const fact = set.get(id);
    return fact !== undefined && visibleTo(fact, sessionId);
  };
  const ranked = set.words !== null ? byWordOverlap(set, text, depth, admits) : await byVectors(set, embedder, text, depth, sessionId);
  stillOpen();
  if (ranked === null) return [];
  return fuseChannels({ ...ranked, keyword: set.keywords.nearest(text, depth, admits) }, k, floors).flatMap(({ id, similarity, channels }) => {
    const fact = set.get(id);
    return fact === undefined ? [] : [{ fact, similarity, channels }];
  });
}

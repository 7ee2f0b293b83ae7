import type { KeywordMatch } from './factKeywordIndex.js';

/**
 * What each retrieval channel said of a hit: its own score, null when the channel did not return
 * it among its candidates (see candidateDepth). `vector`: the cosine of the fact's or node's
 * vector to the query (without an embedder, the word-set cosine that stands in for it); `bm25`: the normalised BM25 score of the keyword channel, in [0, 1) (see
 * FactKeywordIndex); `graph`: the graph channel's score, in (0, 1], when it reached the hit along
 * a link from one of the best hits (see expand).
 */
export interface HitChannels {
  readonly bm25: number | null;
  readonly vector: number | null;
  readonly graph: number | null;
}

/**
 * Reciprocal-rank fusion's constant: a hit ranked r-th by a channel adds `1 / (rrfK + r)`. 60 is
 * the value of the paper that introduced it (Cormack et al., 2009) and of most search engines: it
 * keeps one channel's first place from outweighing a fact both channels rank well.
 */
const rrfK = 60;

/**
 * The keyword floor: a fact whose normalised BM25 score (see KeywordMatch) is at least this is
 * returned even when its cosine is below the similarity floor. A fact of average length that holds
 * one of the query's known words once scores about 0.45 of that word's share of the query's
 * weight: the floor asks for about half of the query's weight (by idf) to be found in the fact, so
 * a fact sharing only a word most facts have stays out.
 */
export const defaultMinKeywordScore = 0.2;

/**
 * The similarity floor when the caller gives none: a cosine this low (or negative) says the texts
 * share nothing, and such a fact is not returned as if it matched, however few facts there are.
 */
export const defaultMinSimilarity = 0.05;

/** Candidates each channel returns for a search of `k`: enough for a fact that one channel ranks low to be lifted by the other. */
export function candidateDepth(k: number): number {
  return Math.max(2 * k, 50);
}

export interface RankedChannels {
  /** The similarity channel's candidates (vector cosine, or word overlap), best first. */
  readonly similar: readonly { readonly id: string; readonly similarity: number }[];
  /** The keyword channel's candidates, best first. */
  readonly keyword: readonly KeywordMatch[];
  /** The similarity of a fact the similarity channel did not return (computed from its vector). */
  readonly similarityOf: (id: string) => number;
}

export interface Floors {
  /** A hit is returned when its similarity is at least this... */
  readonly minSimilarity: number;
  /** ...or its keyword score at least this. */
  readonly minKeywordScore: number;
}

/**
 * The floors of a search given these options: `defaultMinSimilarity` unless the caller names its
 * own (`memory.minRelevance: -1` is the documented way to turn the floor off).
 */
export function floorsOf(options: { readonly minSimilarity?: number; readonly minKeywordScore?: number }): Floors {
  return {
    minSimilarity: options.minSimilarity ?? defaultMinSimilarity,
    minKeywordScore: options.minKeywordScore ?? defaultMinKeywordScore,
  };
}

/** A hit as it is fused and re-ranked: its key (see nodeKey), its fused score, its similarity and what each channel said. */
export interface FusedHit {
  readonly key: string;
  readonly score: number;
  readonly similarity: number;
  readonly channels: HitChannels;
}

/** Best first: the higher score, then the higher similarity, then the lower key. */
export const bestFirst = (a: FusedHit, b: FusedHit): number => b.score - a.score || b.similarity - a.similarity || (a.key < b.key ? -1 : 1);

/**
 * Both channels' candidates fused by reciprocal rank, best first, leaving out those below both
 * floors: a hit is returned as a match only when its vector is close enough or it shares enough
 * rare words with the query. The keyword channel's votes weigh as much as its best match covers
 * of the query (its normalised score): when no candidate holds more than a common word or two of
 * the question, the order of its candidates says little, and letting it count fully would push
 * down what the vectors found.
 */
export function fuseChannels(ranked: RankedChannels, floors: Floors): FusedHit[] {
  const fused = new Map<string, { score: number; similarity: number | null; bm25: number | null }>();
  ranked.similar.forEach(({ id, similarity }, rank) => fused.set(id, { score: 1 / (rrfK + rank + 1), similarity, bm25: null }));
  const keywordWeight = Math.min(1, ranked.keyword[0]?.score ?? 0);
  ranked.keyword.forEach(({ id, score }, rank) => {
    const vote = keywordWeight / (rrfK + rank + 1);
    const found = fused.get(id);
    if (found === undefined) fused.set(id, { score: vote, similarity: null, bm25: score });
    else fused.set(id, { ...found, score: found.score + vote, bm25: score });
  });
  const hits: FusedHit[] = [];
  for (const [key, { score, similarity, bm25 }] of fused) {
    const cosine = similarity ?? ranked.similarityOf(key);
    if (cosine < floors.minSimilarity && (bm25 ?? 0) < floors.minKeywordScore) continue;
    hits.push({ key, score, similarity: cosine, channels: { bm25, vector: similarity, graph: null } });
  }
  return hits.sort(bestFirst);
}

/**
 * The graph channel's votes added to the fused hits: what it reached, ranked by its graph score,
 * votes by reciprocal rank weighed by that score (a hit a weak seed reaches through a weak link
 * counts little). A hit only the graph reached is passed by the floors through its link to a hit
 * that passed them. Best first.
 */
export function withGraphVotes(hits: readonly FusedHit[], reached: ReadonlyMap<string, number>, similarityOf: (key: string) => number): FusedHit[] {
  const byKey = new Map(hits.map((hit) => [hit.key, hit]));
  const ranked = [...reached].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  ranked.forEach(([key, graph], rank) => {
    const vote = graph / (rrfK + rank + 1);
    const found = byKey.get(key);
    byKey.set(
      key,
      found === undefined
        ? { key, score: vote, similarity: similarityOf(key), channels: { bm25: null, vector: null, graph } }
        : { ...found, score: found.score + vote, channels: { ...found.channels, graph } },
    );
  });
  return [...byKey.values()].sort(bestFirst);
}

import type { Embedder } from '../embedding/embedder.js';
import { type Fact, type FactHit, visibleTo } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { FactLimits } from './factLimits.js';
import type { KeywordMatch } from './factKeywordIndex.js';
import { type Floors, type FusedHit, candidateDepth, fuseChannels, withGraphVotes } from './hybridHits.js';
import { type HitSource, expand, nodeIdOf, nodeKey, seenFact, seenNode } from './graphChannel.js';
import type { LinkedNode, RetrievalGraph } from './retrievalGraph.js';
import { rerank } from './rerank.js';
import { type SimilarChannel, byVectors, byWordOverlap } from './similarChannel.js';
import { wordCosine } from './wordOverlap.js';

/** A search of L4 as checked: its text, how many hits, whose facts it reads (see visibleTo), and the floors a hit must pass. */
export interface FactQuery {
  readonly text: string;
  readonly k: number;
  readonly sessionId: string | null | undefined;
  readonly floors: Floors;
  /** The agent's graph, whose nodes are searched and followed beside the facts; null: facts only. */
  readonly graph: RetrievalGraph | null;
}

/** What a search reads: the facts, the embedder that makes their vectors, and the bounds and weights of its graph channel and re-rank. */
export interface SearchedFacts {
  readonly set: FactSet;
  readonly embedder: Embedder | null;
  readonly limits: FactLimits;
}

/** A node as a hit shows it: the fields of a fact it has (its importance, when it last changed), none it does not (no retrievals, no vector). */
function nodeAsFact(node: LinkedNode): Fact {
  const { id, text, sessionId, importance, time, metadata } = node;
  const scope = sessionId === null ? 'agent' : 'session';
  return { v: 1, id, text, scope, sessionId, importance, metadata, retrievals: 0, createdAt: time, embedder: null, mergedFrom: [], fidelity: null };
}

/** Below this share of the facts (one in so many), the keyword channel scores the facts a reader sees one by one. */
const fewVisible = 8;

/** The keyword channel over both the facts and the graph's nodes, best first. */
function keywordMatches(source: HitSource, text: string, depth: number): KeywordMatch[] {
  const { set, sessionId } = source;
  // A session's few facts among many sessions': scored one by one, not by walking every fact that shares a word with the query.
  const few = sessionId !== undefined && set.visibleCount(sessionId) * fewVisible < set.size;
  const facts = few
    ? set.keywords.nearestAmong(text, depth, set.idsVisibleTo(sessionId) ?? [])
    : set.keywords.nearest(text, depth, (id) => seenFact(source, id) !== undefined);
  if (source.graph === null) return facts;
  const nodes = source.graph.nearest(text, depth, source.sessionId).map((match) => ({ id: nodeKey(match.id), score: match.score }));
  return [...facts, ...nodes].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, depth);
}

/** The similarity of any hit: a fact's from its channel, a node's the cosine of its vector, or the word-set cosine of its text while it has none. */
function similarityOf(source: HitSource, ranked: SimilarChannel, text: string): (key: string) => number {
  return (key) => {
    const nodeId = nodeIdOf(key);
    if (nodeId === undefined) return ranked.similarityOf(key);
    return ranked.nodeSimilarity(nodeId) ?? wordCosine(text, seenNode(source, nodeId)?.text ?? '');
  };
}

function hitOf(source: HitSource, { key, similarity, channels }: FusedHit): FactHit[] {
  const nodeId = nodeIdOf(key);
  if (nodeId === undefined) {
    const fact = source.set.get(key);
    return fact === undefined ? [] : [{ fact, similarity, channels }];
  }
  const node = seenNode(source, nodeId);
  return node === undefined ? [] : [{ fact: nodeAsFact(node), similarity, channels, node: { kind: node.kind } }];
}

/**
 * The `k` facts (and nodes of the agent's graph) a reader of the query's session may see that
 * best match its text: the similarity channel (vectors, or word overlap without an embedder) and
 * BM25 fused by reciprocal rank, then the graph channel's votes from the best of them (see
 * expand), then the re-rank (see rerank). `stillOpen` is asked once the query is embedded, before
 * anything is ranked: it throws when the store was closed meanwhile.
 */
export async function nearestFacts(searched: SearchedFacts, query: FactQuery, stillOpen: () => void): Promise<FactHit[]> {
  const { set, embedder, limits } = searched;
  const { text, k, sessionId, floors, graph } = query;
  if (set.size === 0 && graph === null) return [];
  const source: HitSource = { set, graph, sessionId };
  const depth = candidateDepth(k);
  const admits = (id: string): boolean => {
    const fact = set.get(id);
    return fact !== undefined && visibleTo(fact, sessionId);
  };
  const similar = set.words !== null ? byWordOverlap(set, text, depth, admits) : await byVectors(set, embedder, text, depth, sessionId, graph);
  stillOpen();
  const ranked: SimilarChannel =
    similar === null ? { similar: [], similarityOf: () => -1, nodeSimilarity: () => undefined } : { nodeSimilarity: () => undefined, ...similar };
  const similarity = similarityOf(source, ranked, text);
  let hits = fuseChannels({ similar: ranked.similar, keyword: keywordMatches(source, text, depth), similarityOf: similarity }, floors);
  if (limits.graphDepth > 0 && limits.graphNodes > 0) {
    const seeds = hits
      .slice(0, limits.graphSeeds)
      .map((hit) => ({ key: hit.key, relevance: Math.max(0, Math.min(1, Math.max(hit.similarity, hit.channels.bm25 ?? 0))) }));
    hits = withGraphVotes(hits, expand(source, seeds, { depth: limits.graphDepth, maxNodes: limits.graphNodes }), similarity);
  }
  return rerank(source, hits, limits)
    .slice(0, k)
    .flatMap((hit) => hitOf(source, hit));
}

import { type FusedHit, bestFirst } from './hybridHits.js';
import { type HitSource, allLinksOf, nodeIdOf, seenFact, seenNode } from './graphChannel.js';

// After fusion, what the channels cannot see of a hit: when it was said, how much it matters, and
// how it is linked to the other hits. Each nudges the fused score by at most its weight, so a hit
// the channels rank well stays ahead of one they barely found.

export interface RerankWeights {
  readonly recencyWeight: number;
  readonly importanceWeight: number;
  readonly linkWeight: number;
  /** Time in which a hit's recency halves, counted back from the newest hit. */
  readonly halfLifeMs: number;
}

/** When a hit was said or last changed, and its importance (0..1). */
function signalsOf(source: HitSource, key: string): { time: number; importance: number } {
  const nodeId = nodeIdOf(key);
  if (nodeId !== undefined) {
    const node = seenNode(source, nodeId);
    return { time: node?.time ?? 0, importance: node?.importance ?? 0 };
  }
  const fact = seenFact(source, key);
  const at = fact?.metadata?.['at'];
  return { time: typeof at === 'number' ? at : (fact?.createdAt ?? 0), importance: fact?.importance ?? 0 };
}

/**
 * The hits in their final order: each fused score times `1 + recencyWeight × recency +
 * importanceWeight × importance + linkWeight × links`, where recency is 1 for the newest hit and
 * halves every `halfLifeMs` before it (a conversation turn's `at`, else when it was stored), and
 * links is the strength of its links to the other hits summed, over the most any hit has (0 when
 * none is linked). Ties as `bestFirst`.
 */
export function rerank(source: HitSource, hits: readonly FusedHit[], weights: RerankWeights): FusedHit[] {
  const { recencyWeight, importanceWeight, linkWeight, halfLifeMs } = weights;
  if (hits.length < 2 || recencyWeight + importanceWeight + linkWeight === 0) return [...hits];
  const signals = hits.map((hit) => signalsOf(source, hit.key));
  const newest = Math.max(...signals.map((signal) => signal.time));
  const keys = new Set(hits.map((hit) => hit.key));
  const linked = hits.map((hit) =>
    // Every hit is one the reader may see, so its links to other hits need no check.
    linkWeight === 0 ? 0 : allLinksOf(source, hit.key).reduce((sum, link) => sum + (link.key !== hit.key && keys.has(link.key) ? link.strength : 0), 0),
  );
  const mostLinked = Math.max(...linked);
  return hits
    .map((hit, i) => {
      const { time, importance } = signals[i] as { time: number; importance: number };
      const recency = 0.5 ** ((newest - time) / halfLifeMs);
      const links = mostLinked === 0 ? 0 : (linked[i] as number) / mostLinked;
      return { ...hit, score: hit.score * (1 + recencyWeight * recency + importanceWeight * importance + linkWeight * links) };
    })
    .sort(bestFirst);
}

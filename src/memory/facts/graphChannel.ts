import { type Fact, visibleTo } from './factSchema.js';
import { tasksOf } from './factLinks.js';
import type { FactSet } from './factSet.js';
import { type LinkedNode, type RetrievalGraph, nodeVisibleTo } from './retrievalGraph.js';

// The graph channel of a hybrid search: from the best hits of the other two, along the links
// that join facts and nodes, to what they lead to. A hit is named by its key: a fact's id (`f12`),
// or `n:` and a node's id, so a node can never be taken for a fact of the same id.

const nodePrefix = 'n:';

export const nodeKey = (id: string): string => `${nodePrefix}${id}`;

/** The node id of a node's key, or undefined for a fact's. */
export const nodeIdOf = (key: string): string | undefined => (key.startsWith(nodePrefix) ? key.slice(nodePrefix.length) : undefined);

/** What a search reads its hits from: the facts, the graph (null without one) and whose they may be. */
export interface HitSource {
  readonly set: FactSet;
  readonly graph: RetrievalGraph | null;
  readonly sessionId: string | null | undefined;
}

/** An item at the other end of a link, and how strongly the link counts: 0..1 (an edge's weight, at most 1). */
export interface Linked {
  readonly key: string;
  readonly strength: number;
}

/** The fact of `key` when the reader may see it. */
export function seenFact(source: HitSource, key: string): Fact | undefined {
  const fact = source.set.get(key);
  return fact !== undefined && visibleTo(fact, source.sessionId) ? fact : undefined;
}

/** The node of `id` when there is a graph, the node is not hidden, and the reader may see it. */
export function seenNode(source: HitSource, id: string): LinkedNode | undefined {
  const node = source.graph?.node(id);
  return node !== undefined && nodeVisibleTo(node, source.sessionId) ? node : undefined;
}

/**
 * What `key` links to, whoever may see it: a turn's neighbours in its conversation and the events
 * of a fact's Tasks; a node's neighbours along every edge, either way, and the facts that name it
 * as their Task. The re-rank reads these among hits only (each of which the reader may see).
 */
export function allLinksOf(source: HitSource, key: string): Linked[] {
  const { set, graph } = source;
  const nodeId = nodeIdOf(key);
  if (nodeId !== undefined) {
    const nodes = (graph?.links(nodeId) ?? []).map(({ id, weight }) => ({ key: nodeKey(id), strength: Math.min(1, weight) }));
    return [...nodes, ...set.links.factsOfTask(nodeId).map((id) => ({ key: id, strength: 1 }))];
  }
  const fact = set.get(key);
  if (fact === undefined) return [];
  const turns = set.links.turnNeighbours(fact).map((id) => ({ key: id, strength: 1 }));
  return graph === null ? turns : [...turns, ...tasksOf(fact).map((id) => ({ key: nodeKey(id), strength: 1 }))];
}

/** What `key` links to that the reader may see (see allLinksOf). Nothing of another session is reached, nor passed through. */
function linksOf(source: HitSource, key: string): Linked[] {
  const nodeId = nodeIdOf(key);
  if (nodeId === undefined && seenFact(source, key) === undefined) return [];
  return allLinksOf(source, key).filter((link) => {
    const linkedNode = nodeIdOf(link.key);
    return linkedNode === undefined ? seenFact(source, link.key) !== undefined : seenNode(source, linkedNode) !== undefined;
  });
}

export interface Expansion {
  /** Links followed from a seed at most. */
  readonly depth: number;
  /** Items reached that are not seeds, at most. */
  readonly maxNodes: number;
}

/**
 * The items within `depth` links of the seeds, each with its graph score: the most any seed
 * lends it, a seed's relevance (0..1) times each link's strength on the way, halved for every
 * link past the first. A seed another seed links to is scored too (it counts toward neither
 * bound); at most `maxNodes` others are reached, the nearest first (breadth first, the seeds in
 * their order).
 */
export function expand(source: HitSource, seeds: readonly { readonly key: string; readonly relevance: number }[], bounds: Expansion): Map<string, number> {
  const reached = new Map<string, number>();
  const seedKeys = new Set(seeds.map((seed) => seed.key));
  let added = 0;
  let frontier: Linked[] = seeds.map(({ key, relevance }) => ({ key, strength: relevance }));
  for (let step = 1; step <= bounds.depth && frontier.length > 0; step++) {
    const next: Linked[] = [];
    const hop = step === 1 ? 1 : 0.5;
    for (const from of frontier) {
      for (const link of linksOf(source, from.key)) {
        const score = from.strength * link.strength * hop;
        const known = reached.get(link.key);
        if (known !== undefined) {
          if (score > known) reached.set(link.key, score);
          continue;
        }
        const seed = seedKeys.has(link.key);
        if (!seed && added >= bounds.maxNodes) continue;
        reached.set(link.key, score);
        if (seed) continue;
        added++;
        next.push({ key: link.key, strength: score });
      }
    }
    frontier = next;
  }
  return reached;
}

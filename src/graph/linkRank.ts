import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';
import type { GraphNode } from './nodeSchema.js';
import { NeighbourhoodQuerySchema, neighbourhood } from './neighbourhood.js';
import type { ReadonlyGraph } from './readonlyGraph.js';

/** A neighbourhood to rank, and how: a fixed number of iterations, so the cost and the result are fixed too. */
export const RankQuerySchema = NeighbourhoodQuerySchema.extend({
  iterations: z.number().int().positive().max(100).default(20),
  /** The share of each node's score passed along its links; the rest returns to the start. */
  damping: z.number().min(0).max(1).default(0.85),
}).strict();
export type RankQuery = z.input<typeof RankQuerySchema>;

export interface RankedNode {
  readonly node: GraphNode;
  /** Its share of the walk, 0..1; the scores of one ranking add up to 1. */
  readonly score: number;
}

/**
 * The nodes around `id` ranked by how strongly their links tie them to it (seed 002 §3.2,
 * "PageRank-style weighted traversal"): a PageRank personalised to the start node over the
 * neighbourhood's edges, each taken both ways (a note cited by the start matters as much as one
 * citing it) and in proportion to its weight. Highest first, by id among equals: deterministic.
 */
export function rankNeighbourhood(graph: ReadonlyGraph, id: string, query: RankQuery = {}): RankedNode[] {
  const { iterations, damping, ...around } = parseOrThrow(RankQuerySchema, query, 'query');
  const found = neighbourhood(graph, id, around);
  const index = new Map(found.nodes.map(({ node }, i) => [node.id, i]));
  const links: { to: number; weight: number }[][] = found.nodes.map(() => []);
  for (const edge of found.edges) {
    const from = index.get(edge.from) as number;
    const to = index.get(edge.to) as number;
    links[from]?.push({ to, weight: edge.weight });
    links[to]?.push({ to: from, weight: edge.weight });
  }
  const totals = links.map((out) => out.reduce((sum, link) => sum + link.weight, 0));
  let scores: number[] = found.nodes.map((_, i) => (i === 0 ? 1 : 0));
  for (let round = 0; round < iterations; round++) {
    const next = found.nodes.map(() => 0);
    let toStart = 1 - damping;
    scores.forEach((score, i) => {
      const total = totals[i] ?? 0;
      // A node with no links gives its share back to the start, so the scores keep adding up to 1.
      if (total === 0) toStart += damping * score;
      else for (const link of links[i] ?? []) next[link.to] = (next[link.to] ?? 0) + (damping * score * link.weight) / total;
    });
    next[0] = (next[0] ?? 0) + toStart;
    scores = next;
  }
  return found.nodes
    .map(({ node }, i) => ({ node, score: scores[i] ?? 0 }))
    .sort((a, b) => b.score - a.score || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
}

import { z } from 'zod';
import { TaskIdSchema, parseOrThrow } from '../task/index.js';
import { EdgeTypeSchema, type GraphEdge, edgeTypes } from './edgeSchema.js';
import type { GraphNode } from './nodeSchema.js';
import type { ReadonlyGraph } from './readonlyGraph.js';
import { nodeOrThrow, visible } from './traversals.js';

/** What part of the graph around a node to look at; bounded in depth and in nodes returned. */
export const NeighbourhoodQuerySchema = z
  .object({
    /** Links to follow from the node: 0 is the node alone. */
    depth: z.number().int().min(0).max(10).default(2),
    /** Nodes returned at most (the node itself included); the nearest are kept. */
    maxNodes: z.number().int().positive().max(1000).default(100),
    /** Edge types to follow; every type when absent. */
    types: z.array(EdgeTypeSchema).min(1).optional(),
    /** Follow edges along their direction (`out`), against it (`in`), or both. */
    direction: z.enum(['out', 'in', 'both']).default('both'),
    /** Archived events are neither returned nor walked through unless this is true (the start is returned anyway). */
    includeArchived: z.boolean().default(false),
    /** Only this session's nodes and those of every session (no `sessionId`) are returned or walked through (the start is returned anyway); every node when absent. */
    sessionId: TaskIdSchema.optional(),
  })
  .strict();
export type NeighbourhoodQuery = z.input<typeof NeighbourhoodQuerySchema>;

export interface Neighbourhood {
  /** The nodes found, nearest first (by id within one distance), the start first at distance 0. */
  readonly nodes: readonly { readonly node: GraphNode; readonly distance: number }[];
  /** The edges followed that join two of the nodes found. */
  readonly edges: readonly GraphEdge[];
  /** Whether `maxNodes` left out nodes within `depth`. */
  readonly truncated: boolean;
}

/** The ids one step from `id` along the query's edges. */
function stepsFrom(graph: ReadonlyGraph, id: string, query: z.output<typeof NeighbourhoodQuerySchema>): string[] {
  const next: string[] = [];
  for (const type of query.types ?? edgeTypes) {
    if (query.direction !== 'in') for (const edge of graph.outEdges(id, type)) next.push(edge.to);
    if (query.direction !== 'out') for (const edge of graph.inEdges(id, type)) next.push(edge.from);
  }
  return next;
}

/**
 * The nodes within `depth` links of node `id` (breadth first), and the edges among them: what an
 * agent reads to understand a node's context (seed 002 §4.2, §4.3).
 */
export function neighbourhood(graph: ReadonlyGraph, id: string, query: NeighbourhoodQuery = {}): Neighbourhood {
  const asked = parseOrThrow(NeighbourhoodQuerySchema, query, 'query');
  const start = nodeOrThrow(graph, id);
  const found = new Map<string, { node: GraphNode; distance: number }>([[id, { node: start, distance: 0 }]]);
  let truncated = false;
  let level = [id];
  for (let distance = 1; distance <= asked.depth && level.length > 0 && !truncated; distance++) {
    const next = new Map<string, GraphNode>();
    for (const from of level) {
      for (const to of stepsFrom(graph, from, asked)) {
        const node = graph.node(to);
        if (node !== undefined && !found.has(to) && visible(node, asked)) next.set(to, node);
      }
    }
    level = [];
    for (const node of [...next.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (found.size >= asked.maxNodes) {
        truncated = true;
        break;
      }
      found.set(node.id, { node, distance });
      level.push(node.id);
    }
  }
  const edges: GraphEdge[] = [];
  for (const from of found.keys()) {
    for (const type of asked.types ?? edgeTypes) for (const edge of graph.outEdges(from, type)) if (found.has(edge.to)) edges.push(edge);
  }
  return { nodes: [...found.values()], edges, truncated };
}

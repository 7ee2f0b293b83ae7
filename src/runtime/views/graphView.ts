import { z } from 'zod';
import {
  GraphEdgeSchema,
  type GraphNode,
  GraphNodeSchema,
  GraphRuleError,
  NeighbourhoodQuerySchema,
  NodeIdSchema,
  type ReadonlyGraph,
  neighbourhood,
  recentNodes,
} from '../../graph/index.js';
import { type Redactor, TaskIdSchema } from '../../task/index.js';
import { memoryViewTextChars } from './memoryQuery.js';

// What `rt.graph(ownerId, query)`, `GET /api/agents/:id/graph/nodes[/:nodeId]` and `troupe graph`
// are asked and answer, one zod schema each: the source of the types, of the checks (a bad query
// is refused naming its field) and of the HTTP reply's schema.

/** Most nodes one view holds (its `limit`). */
export const maxGraphPageSize = 500;
const defaultGraphPageSize = 100;
/** Links a view follows at most from its node: the neighbourhood's own bound. */
export const maxGraphViewDepth = NeighbourhoodQuerySchema.shape.depth.unwrap().maxValue ?? 10;

/**
 * A view of a graph: its newest nodes (without `nodeId`), or node `nodeId` with its
 * neighbourhood to `depth` links, edge types included. Archived events are hidden unless
 * `includeArchived`; with `sessionId`, only that session's nodes and those of every session.
 */
export const GraphQuerySchema = z
  .object({
    nodeId: NodeIdSchema.optional(),
    depth: z.number().int().min(0).max(maxGraphViewDepth).optional(),
    limit: z.number().int().min(1).max(maxGraphPageSize).optional(),
    includeArchived: z.boolean().optional(),
    sessionId: TaskIdSchema.optional(),
  })
  .strict()
  .superRefine((query, context) => {
    if (query.nodeId === undefined && query.depth !== undefined) {
      context.addIssue({ code: 'custom', path: ['depth'], message: 'is how many links from nodeId to follow: give nodeId too' });
    }
  })
  .transform((query) => ({
    nodeId: query.nodeId ?? null,
    depth: query.nodeId === undefined ? null : (query.depth ?? 2),
    limit: query.limit ?? defaultGraphPageSize,
    includeArchived: query.includeArchived ?? false,
    sessionId: query.sessionId ?? null,
  }));

export type GraphQueryInput = z.input<typeof GraphQuerySchema>;
export type GraphQuery = z.output<typeof GraphQuerySchema>;

/** What `rt.graph` returns: plain data, its free text redacted (and a node's content cut at 2,000 characters). */
export const GraphViewSchema = z.object({
  /** The agent whose graph it is, or `society`. */
  ownerId: z.string(),
  /** `live`: the open graph; `store`: what the store keeps of a graph that is not open (a terminated agent's). */
  source: z.enum(['live', 'store']),
  nodeId: z.string().nullable(),
  /** Links followed from `nodeId`, or null for a listing. */
  depth: z.number().int().nullable(),
  sessionId: z.string().nullable(),
  /** The whole graph's nodes and edges, whatever the view shows. */
  counts: z.object({ nodes: z.number().int().nonnegative(), edges: z.number().int().nonnegative() }),
  /** A listing: the nodes it could show in all, newest first; a neighbourhood: the nodes found. */
  total: z.number().int().nonnegative(),
  /** Whether `limit` left out nodes (a listing's older ones, or a neighbourhood's farther ones). */
  truncated: z.boolean(),
  /** The nodes, each with its distance in links from `nodeId` (null in a listing). */
  nodes: z.array(z.object({ node: GraphNodeSchema, distance: z.number().int().nonnegative().nullable() })),
  /** The edges among the nodes of a neighbourhood, with their types (none in a listing). */
  edges: z.array(GraphEdgeSchema),
});
export type GraphView = z.infer<typeof GraphViewSchema>;

/** A text as a view shows it: redacted first (so a cut never leaves part of a secret), then cut. */
function shown(text: string, redactor: Redactor): string {
  const safe = redactor.text(text);
  return safe.length <= memoryViewTextChars ? safe : `${safe.slice(0, memoryViewTextChars - 1)}…`;
}

function redacted(node: GraphNode, redactor: Redactor): GraphNode {
  const common = { content: shown(node.content, redactor), metadata: redactor.value(node.metadata) as GraphNode['metadata'] };
  if (node.kind === 'event') return { ...node, ...common };
  const source = node.source === null ? null : redactor.text(node.source);
  return { ...node, ...common, title: redactor.text(node.title), tags: node.tags.map((tag) => redactor.text(tag)), source };
}

/** Builds the view `query` asks for of `graph` (an unknown node is refused with `unknown_node`); every text in it redacted with `redactor`. */
export function graphView(graph: ReadonlyGraph, query: GraphQuery, about: { ownerId: string; source: 'live' | 'store' }, redactor: Redactor): GraphView {
  const { nodeId, depth, limit, includeArchived, sessionId } = query;
  const shared = { ...about, nodeId, depth, sessionId, counts: { nodes: graph.nodeCount, edges: graph.edgeCount } };
  const session = sessionId === null ? {} : { sessionId };
  if (nodeId === null || depth === null) {
    const recent = recentNodes(graph, { limit, includeArchived, ...session });
    const nodes = recent.nodes.map((node) => ({ node: redacted(node, redactor), distance: null }));
    return { ...shared, total: recent.total, truncated: recent.total > nodes.length, nodes, edges: [] };
  }
  const start = graph.node(nodeId);
  if (start !== undefined && sessionId !== null && start.sessionId !== null && start.sessionId !== sessionId) {
    throw new GraphRuleError('unknown_node', `no node with id ${nodeId} in session ${sessionId}`, { nodeId });
  }
  const found = neighbourhood(graph, nodeId, { depth, maxNodes: limit, includeArchived, ...session });
  const nodes = found.nodes.map(({ node, distance }) => ({ node: redacted(node, redactor), distance }));
  return { ...shared, total: nodes.length, truncated: found.truncated, nodes, edges: found.edges.map((edge) => ({ ...edge })) };
}

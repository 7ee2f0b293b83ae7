import type { EdgeKey, EdgeType, GraphEdge } from './edgeSchema.js';
import type { GraphNode } from './nodeSchema.js';

/**
 * What traversals and readers see of a graph: nodes by id and edges both ways by type, each in
 * time proportional to what it returns. Nodes and edges handed out are frozen.
 */
export interface ReadonlyGraph {
  readonly nodeCount: number;
  readonly edgeCount: number;
  node(id: string): GraphNode | undefined;
  nodes(): IterableIterator<GraphNode>;
  edges(): IterableIterator<GraphEdge>;
  edge(key: EdgeKey): GraphEdge | undefined;
  /** Edges of `type` leaving `id` (its successors'), oldest first; empty for an unknown id. */
  outEdges(id: string, type: EdgeType): readonly GraphEdge[];
  /** Edges of `type` arriving at `id` (its predecessors'), oldest first; empty for an unknown id. */
  inEdges(id: string, type: EdgeType): readonly GraphEdge[];
}

/**
 * What one accepted change did, as the records to write: applied in memory already, persisted
 * as one transaction.
 */
export interface GraphChange {
  readonly putNodes: readonly GraphNode[];
  readonly removeNodes: readonly string[];
  readonly putEdges: readonly GraphEdge[];
  readonly removeEdges: readonly EdgeKey[];
}

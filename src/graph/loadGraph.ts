import type { Logger } from '../logger.js';
import type { EdgeKey } from './edgeSchema.js';
import { graphSubDbs, type GraphRecords } from './graphRecords.js';
import { GraphRuleError } from './graphRuleError.js';
import type { MemoryGraph } from './memoryGraph.js';

/**
 * Rebuilds `graph` from `records`: every valid node, then every valid edge the graph's rules
 * accept. An edge they refuse (one whose node is missing, because its record was damaged; one
 * that breaks the matrix or a topology) is dropped, logged, and removed from the store before the
 * load resolves: left there, it would come back joined to a node later added under the same id,
 * or once another edge of its cycle is removed. Limits are not applied: a graph stored under
 * higher limits loads whole, and refuses additions until it is back under them.
 */
export async function loadGraph(records: GraphRecords, graph: MemoryGraph, owner: string, logger: Logger): Promise<void> {
  const stored = records.read();
  for (const node of stored.nodes) graph.addNode(node, true);
  const dropped: EdgeKey[] = [];
  for (const edge of stored.edges) {
    try {
      graph.addEdge(edge, true);
    } catch (error) {
      if (!(error instanceof GraphRuleError)) throw error;
      dropped.push({ from: edge.from, to: edge.to, type: edge.type });
      const key = JSON.stringify([owner, edge.from, edge.type, edge.to]);
      logger.error({ owner, db: graphSubDbs.edges, key, rule: error.rule, reason: error.message }, 'dropped a stored graph edge the graph refuses');
    }
  }
  if (dropped.length > 0) await records.write({ putNodes: [], removeNodes: [], putEdges: [], removeEdges: dropped });
}

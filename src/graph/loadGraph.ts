import type { RootDatabase } from 'lmdb';
import { type Logger, silentLogger } from '../logger.js';
import { parseOrThrow } from '../task/index.js';
import type { EdgeKey } from './edgeSchema.js';
import { graphLimitsOf } from './graphLimits.js';
import { GraphRecords, graphSubDbs } from './graphRecords.js';
import { GraphRuleError } from './graphRuleError.js';
import { MemoryGraph } from './memoryGraph.js';
import { OwnerIdSchema } from './nodeSchema.js';
import type { ReadonlyGraph } from './readonlyGraph.js';

/**
 * Rebuilds `graph` from `records`: every valid node, then every valid edge the graph's rules
 * accept. An edge they refuse (one whose node is missing, because its record was damaged; one
 * that breaks the matrix or a topology) is dropped, logged, and removed from the store before the
 * load resolves: left there, it would come back joined to a node later added under the same id,
 * or once another edge of its cycle is removed. Limits are not applied: a graph stored under
 * higher limits loads whole, and refuses additions until it is back under them.
 */
export async function loadGraph(records: GraphRecords, graph: MemoryGraph, owner: string, logger: Logger): Promise<void> {
  const dropped = rebuild(records, graph, owner, logger);
  if (dropped.length > 0) await records.write({ putNodes: [], removeNodes: [], putEdges: [], removeEdges: dropped });
}

/** Puts what `records` hold into `graph`; resolves with the edges it refused (each logged). */
function rebuild(records: GraphRecords, graph: MemoryGraph, owner: string, logger: Logger): EdgeKey[] {
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
  return dropped;
}

/**
 * What `db` holds of `ownerId`'s graph, read without opening it for changes: what a view of a
 * graph whose owner is gone (a terminated agent, a stopped society) reads. Nothing is written: a
 * damaged record or an edge the rules refuse is left out and logged, and stays in the store for
 * the graph's next opening to drop.
 */
export function readStoredGraph(db: RootDatabase, ownerId: string, logger: Logger = silentLogger): ReadonlyGraph {
  const owner = parseOrThrow(OwnerIdSchema, ownerId, 'ownerId');
  const graph = new MemoryGraph(graphLimitsOf(undefined));
  rebuild(new GraphRecords(db, owner, logger), graph, owner, logger);
  return graph;
}

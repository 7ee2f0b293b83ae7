import { TroupeError } from '../../errors.js';
import type { ReadonlyGraph } from '../../graph/index.js';
import { AgentIdSchema, type Redactor, parseOrThrow } from '../../task/index.js';
import { societyGraphOwner } from '../memory/graphHub.js';
import type { MemoryHub } from '../memory/memoryHub.js';
import { type GraphView, GraphQuerySchema, graphView } from './graphView.js';

/**
 * The graph of `ownerId` (a live agent's, opened if it is not yet; the society's, `society`), or
 * what the store keeps of one whose agent is not live; `unknown_agent` for an agent the
 * organisation never had, `agent_terminated` for a terminated one whose graph was kept in memory only.
 */
async function graphOf(
  deps: { readonly hub: MemoryHub; readonly known: (agentId: string) => boolean },
  ownerId: string,
): Promise<{ graph: ReadonlyGraph; source: 'live' | 'store' }> {
  const { hub } = deps;
  if (ownerId === societyGraphOwner) return { graph: (await hub.graphs.of(ownerId)).graph, source: 'live' };
  if (!deps.known(ownerId)) throw new TroupeError('unknown_agent', `no agent "${ownerId}"`, { context: { agentId: ownerId } });
  if (hub.opened(ownerId) !== undefined) return { graph: (await hub.graphs.of(ownerId)).graph, source: 'live' };
  const stored = await hub.graphs.stored(ownerId);
  if (stored === null) {
    throw new TroupeError(
      'agent_terminated',
      `agent "${ownerId}" is terminated, and its graph was kept in memory only: it went with the agent (a data dir keeps it)`,
      {
        context: { agentId: ownerId },
      },
    );
  }
  return { graph: stored, source: 'store' };
}

/**
 * `rt.graph`: checks the owner and the query (a bad one is refused naming its field), then builds
 * the view from the owner's graph (see `graphOf`); an unknown node is `unknown_node`.
 */
export async function readGraph(
  deps: { readonly hub: MemoryHub; readonly known: (agentId: string) => boolean },
  ownerId: string,
  input: unknown,
  redactor: Redactor,
): Promise<GraphView> {
  const id = parseOrThrow(AgentIdSchema, ownerId, 'agentId');
  const query = parseOrThrow(GraphQuerySchema, input ?? {});
  const { graph, source } = await graphOf(deps, id);
  return graphView(graph, query, { ownerId: id, source }, redactor);
}

import { TroupeError } from '../../errors.js';
import type { AgentRecord } from '../../org/index.js';
import { societyGraphOwner } from '../memory/graphHub.js';

/**
 * Ids no agent may take: the human's endpoint, the supervisor, the observation sink, the owner of
 * a society on NATS, its nodes' common address, and the owner of the graph the society shares.
 */
export const reservedIds: ReadonlySet<string> = new Set(['user', 'runtime', 'observer', 'owner', 'nodes', societyGraphOwner]);

/**
 * Why work sent to `agentId` from another node can never be done here: it is not an agent of
 * the organisation, or not a live one. Undefined for a live agent and for the society's other
 * endpoints (the user, the owner, nodes, which the bus reaches by other ways).
 */
export function undeliverableTo(agentId: string, isLive: boolean, recordOf: (agentId: string) => AgentRecord | undefined): TroupeError | undefined {
  if (reservedIds.has(agentId) || isLive) return undefined;
  if (recordOf(agentId) === undefined) return new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
  return new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
}

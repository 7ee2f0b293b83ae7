import type { AgentRecord } from '../../org/index.js';

/**
 * Who may terminate `agent`: its parent; the user for a top-level agent and, acting as a
 * top-level agent's owner, for that agent's children too (a child whose parent's turn ended
 * without terminating it is otherwise there for good).
 */
export function mayTerminate(agent: AgentRecord, by: string, record: (agentId: string) => AgentRecord | undefined): boolean {
  if (agent.parentAgentId === null) return by === 'user';
  if (by === agent.parentAgentId) return true;
  return by === 'user' && record(agent.parentAgentId)?.parentAgentId === null;
}

import type { AgentRecord } from '../../org/index.js';

/** Which agents, and which page of them: `limit` from `offset`, oldest first. */
export interface AgentQuery {
  readonly status?: 'active' | 'terminated' | undefined;
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
}

/** A page of agents and how many match in all, so a client knows when it has paged to the end. */
export interface AgentPage<T> {
  readonly total: number;
  readonly offset: number;
  readonly agents: readonly T[];
  /** `store` when read from the org store (every agent ever spawned); `memory` from the live agents and the recent terminated ones. */
  readonly source: 'store' | 'memory';
}

/** Agents on one page unless asked otherwise. */
const defaultAgentPageSize = 100;

/**
 * One page of `records` matching `query`, oldest first (ties by id), each made a view. `fresher`
 * gives an agent's record in memory, newer than the stored one while a write is on its way.
 */
export function pageAgents<T>(
  records: readonly AgentRecord[],
  query: AgentQuery,
  source: AgentPage<T>['source'],
  fresher: (agentId: string) => AgentRecord | undefined,
  view: (record: AgentRecord) => T,
): AgentPage<T> {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? defaultAgentPageSize;
  const matching = records
    .map((record) => fresher(record.id) ?? record)
    .filter((record) => query.status === undefined || record.status === query.status)
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { total: matching.length, offset, agents: matching.slice(offset, offset + limit).map(view), source };
}

import type { AgentRecord } from '../org/index.js';
import { type AgentPage, type AgentQuery, pageAgents } from './agentPage.js';
import type { Journal } from './journal/journal.js';
import type { AgentView } from './runtimeOptions.js';
import type { Society } from './society.js';

/**
 * What `rt.agents()`, `rt.agentPage()` and `rt.agent()` show of an agent: its record with its
 * role's name, its machine's state, its queue, lanes and model usage. A restored agent not
 * started yet is read from the store.
 */
export class AgentViews {
  readonly #society: Society;
  readonly #journal: Journal;

  constructor(society: Society, journal: Journal) {
    this.#society = society;
    this.#journal = journal;
  }

  /** The agents in memory: the live ones and the most recent terminated ones. */
  inMemory(): AgentView[] {
    return this.#society.records().map((record) => this.view(record));
  }

  /** A page of agents; terminated ones are read from the org store when there is one (see `Runtime.agentPage`). */
  page(query: AgentQuery): AgentPage<AgentView> {
    const stored = query.status === 'active' ? undefined : this.#journal.agentRecords();
    const view = (record: AgentRecord): AgentView => this.view(record);
    if (stored === undefined) return pageAgents(this.#society.records(), query, 'memory', () => undefined, view);
    const inMemory = new Map(this.#society.records().map((record) => [record.id, record]));
    return pageAgents(stored, query, 'store', (agentId) => inMemory.get(agentId), view);
  }

  one(agentId: string): AgentView | undefined {
    const record = this.#society.record(agentId);
    return record === undefined ? undefined : this.view(record);
  }

  view(record: AgentRecord): AgentView {
    const society = this.#society;
    const agent = society.agent(record.id);
    const usage = society.usageOf(record.id);
    // A restored agent not started yet is still all in the store: its waiting Tasks are counted there.
    const restoring = agent === undefined && society.restoring.has(record.id);
    // Each field named, never `{ ...record, more }`: on Node 20 that costs ~5 µs and a new hidden
    // class per object, which made every reader of the views (GET /api/agents) megamorphic.
    return {
      id: record.id,
      roleId: record.roleId,
      parentAgentId: record.parentAgentId,
      createdAt: record.createdAt,
      terminatedAt: record.terminatedAt,
      status: record.status,
      roleName: society.roles.find(record.roleId)?.name ?? record.roleId,
      state: restoring ? 'restoring' : (agent?.state ?? society.remoteAgent(record.id)?.state ?? 'terminated'),
      queued: restoring ? this.#journal.storedWaitingCount(record.id) : (agent?.queued ?? 0),
      lanes: agent?.lanes ?? 0,
      usage: { calls: usage?.calls ?? 0, promptTokens: usage?.promptTokens ?? 0, completionTokens: usage?.completionTokens ?? 0 },
    };
  }
}

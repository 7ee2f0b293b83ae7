import type { AgentRecord } from '../../org/index.js';
import { type AgentPage, type AgentQuery, pageAgents } from './agentPage.js';
import type { Journal } from '../journal/journal.js';
import type { AgentState, ModelUsage } from '../agent/index.js';
import type { Society } from '../society/society.js';

/** An agent as the runtime reports it. */
export interface AgentView extends AgentRecord {
  readonly roleName: string;
  /**
   * Where the agent is in its lifecycle: `running.idle` with no turn in progress,
   * `running.turn.thinking` while any of its lanes waits on the model, `running.turn.acting`
   * while all of them run tools; `draining` while it finishes its turns and queued Tasks with
   * intake closed; `terminated` once gone (`AgentState` lists every state).
   */
  readonly state: AgentState;
  /** Tasks waiting in its mailbox for a lane. */
  readonly queued: number;
  /** Sessions it is serving right now: turns in progress, one per session (at most `maxLanesPerAgent`). */
  readonly lanes: number;
  readonly usage: ModelUsage;
}

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

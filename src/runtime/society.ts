import type { Observable } from 'rxjs';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError } from '../errors.js';
import { type IdGenerator, agentIdFor } from '../ids.js';
import type { AgentRecord, Role, Termination } from '../org/index.js';
import { Actions, type Task, type TerminationMode, type ToolPolicy } from '../task/index.js';
import type { CompressibleConversation, SocietyPort } from '../tools/index.js';
import { ActivityTracker } from './activity.js';
import { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage } from './agent/index.js';
import { provideAgentMachine } from './agent/agentMachine.js';
import type { StoredOrganisation } from './journal/journal.js';
import { OrgTree } from './orgTree.js';
import { Drains } from './drains.js';
import { PendingAgents } from './pendingAgents.js';
import { RoleBook } from './roleBook.js';
import { restoreOrganisation } from './restoredOrganisation.js';
import { SpawnLimits } from './spawnLimits.js';
import { UsageLedger } from './usageLedger.js';

/** What a society is made with: every agent's environment but the society and its activity tracker. */
export type SocietyDeps = Omit<AgentEnvironment, 'society' | 'activity'>;

/** Ids no agent may take: the human's endpoint, the supervisor, the observation sink. */
const reservedIds: ReadonlySet<string> = new Set(['user', 'runtime', 'observer']);

/**
 * The registry of live agents and the organisation as data: roles, agent records (the tree, as
 * parent links) and terminations. It enforces the society's rules: only a parent terminates its
 * child, termination cascades, a terminated agent takes no more work or children. It is the port
 * the meta-tools act through. Tests reach it with `societyOf` (troupe/testing).
 */
export class Society implements SocietyPort {
  readonly roles: RoleBook;
  readonly #org: OrgTree;
  readonly #agents = new Map<string, Agent>();
  /** Usage of the agents in memory, and the sum of those gone, so the society's usage stays whole. */
  readonly #usage = new UsageLedger();
  readonly #activity = new ActivityTracker();
  /** Emits whenever an agent becomes busy or quiet. */
  readonly activity$: Observable<void> = this.#activity.changes$;
  readonly #env: AgentEnvironment;
  readonly #machine: AgentMachine;
  readonly #drains: Drains;
  readonly #limits: SpawnLimits;
  /** Restored agents whose actors have not started yet: live in every count, started by the background restore or their first Task. */
  readonly #pending: PendingAgents;

  constructor(deps: SocietyDeps) {
    this.roles = new RoleBook(deps);
    this.#org = new OrgTree(deps.config.terminatedAgentsInMemory);
    this.#pending = new PendingAgents({ bus: deps.bus, logger: deps.logger, start: (record, role) => this.#start(record, role, 'restored') });
    const { agents, pending } = { agents: this.#agents, pending: this.#pending };
    this.#limits = new SpawnLimits(deps.config, {
      get liveCount() {
        return agents.size + pending.size;
      },
      liveChildren: (agentId) => [...this.#org.children(agentId)].filter((id) => this.#agents.has(id) || this.#pending.has(id)).length,
      depthOf: (agentId) => this.#org.depthOf(agentId),
    });
    this.#env = { ...deps, society: this, activity: this.#activity };
    this.#drains = new Drains(this.#activity, deps.clock);
    this.#machine = provideAgentMachine((agentId) => this.#agents.get(agentId), deps.logger);
  }

  get bus(): EventBus {
    return this.#env.bus;
  }
  get ids(): IdGenerator {
    return this.#env.ids;
  }
  get clock(): Clock {
    return this.#env.clock;
  }

  /** The live agent `agentId`, if its actor runs (a restored agent not started yet has none: see `startRestored`). */
  agent(agentId: string): Agent | undefined {
    return this.#agents.get(agentId);
  }

  /**
   * The live agent `agentId`; a restored agent not started yet starts now, ahead of the
   * background restore, with the Tasks it had waiting, so whatever it is given next queues behind them.
   */
  startRestored(agentId: string): Agent | undefined {
    return this.#agents.get(agentId) ?? this.#pending.start(agentId);
  }

  /** Restored agents whose actors have not started yet (see `restore`), and how far their restore has got. */
  get restoring(): PendingAgents {
    return this.#pending;
  }

  /** An agent's record: from memory, else (a terminated agent that left memory) from the store. */
  record(agentId: string): AgentRecord | undefined {
    return this.#org.get(agentId) ?? this.#env.journal.agentRecord(agentId);
  }

  records(): AgentRecord[] {
    return this.#org.all();
  }

  terminations(): readonly Termination[] {
    return this.#org.terminations();
  }

  liveIds(): string[] {
    return [...this.#agents.keys()];
  }

  parentOf(agentId: string): string | null {
    return this.#org.parentOf(agentId);
  }

  /** Whether `agentId` is live and not being terminated, so it may take new work and children (a restored agent not started yet may). */
  isActive(agentId: string): boolean {
    return this.#org.get(agentId)?.status === 'active' && (this.#agents.get(agentId)?.active === true || this.#pending.has(agentId));
  }

  requireLive(agentId: string): AgentRecord {
    const record = this.record(agentId);
    if (record === undefined) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
    if (!this.isActive(agentId)) throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
    return record;
  }

  /** Throws unless `agentId` still runs turns: live and not stopping (a draining agent still works). */
  requireRunning(agentId: string): Agent {
    const agent = this.startRestored(agentId);
    if (agent?.running !== true) {
      if (!this.#org.has(agentId)) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
      throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
    }
    return agent;
  }

  conversationOf(agentId: string): CompressibleConversation {
    return this.requireRunning(agentId).conversation;
  }

  /** Model calls and tokens of an agent, live or terminated. */
  usageOf(agentId: string): ModelUsage | undefined {
    return this.#usage.of(agentId);
  }

  /** Model calls and tokens of every agent so far, including those gone from memory. */
  totalUsage(): ModelUsage {
    return this.#usage.total();
  }

  /** How many live agents are working or have mail. */
  get busyCount(): number {
    return this.#activity.busyCount;
  }

  async createRole(input: { name: string; prompt: string; createdBy: string }): Promise<{ roleId: string; name: string }> {
    const role = await this.addRole(input);
    return { roleId: role.id, name: role.name };
  }

  /** Creates a role and resolves once it is recorded; a role that could not be recorded is taken back. */
  async addRole(input: { name: string; prompt: string; createdBy: string; tools?: ToolPolicy }): Promise<Role> {
    const role = this.roles.create(input);
    try {
      await this.#env.journal.role(role);
    } catch (error) {
      this.roles.forget(role.id);
      throw error;
    }
    return role;
  }

  /**
   * Records a new agent and starts it; resolves with its id once it is recorded. A broken rule
   * rejects. `parentTask`, when given, is the Task the spawn was made for: the spawn notice joins
   * its tree. With nothing to write, the agent is started before this returns.
   */
  async spawn(input: { role: string; parent: string | null; id?: string; parentTask?: Task }): Promise<{ agentId: string; roleId: string }> {
    const role = this.roles.find(input.role);
    if (role === undefined) throw new TroupeError('invalid_input', `no role "${input.role}"; create it first`);
    if (input.parent !== null) this.requireLive(input.parent);
    const id = input.id ?? agentIdFor(this.#env.ids, role.name, (named) => this.#env.redactor.reveals(named));
    if (reservedIds.has(id) || this.record(id) !== undefined) throw new TroupeError('invalid_input', `agent id "${id}" is taken`);

    // Refused past a limit; held until the agent is live (or the spawn failed).
    const release = this.#limits.reserve(input.parent);
    const record: AgentRecord = { id, roleId: role.id, parentAgentId: input.parent, createdAt: this.#env.clock.now(), terminatedAt: null, status: 'active' };
    this.#org.add(record);
    // Set once the record is durable: a failure after that leaves the record (it is on disk).
    const progress = { recorded: false };
    let started: boolean;
    try {
      started = await this.#env.journal.agent(record, () => {
        progress.recorded = true;
        release();
        // The parent may have been terminated while the record was being written.
        if (input.parent !== null && !this.isActive(input.parent)) return false;
        this.#start(record, role, 'new').notify(Actions.spawned, { agentId: id, roleId: role.id, role: role.name }, input.parentTask ?? null);
        return true;
      });
    } catch (error) {
      if (!progress.recorded) this.#org.remove(id);
      throw error;
    } finally {
      release();
    }
    if (!started) {
      await this.#env.journal.terminated({
        agentId: id,
        terminatedBy: input.parent ?? 'user',
        at: this.#env.clock.now(),
        reason: 'parent terminated while spawning',
        mode: 'abort',
      });
      this.#retire(this.#org.markTerminated(id, this.#env.clock.now()));
      throw new TroupeError('agent_terminated', `agent "${input.parent ?? ''}" is terminated`, { context: { agentId: input.parent ?? undefined } });
    }
    return { agentId: id, roleId: role.id };
  }

  /** Puts back an organisation read from the journal; its active agents start in the background (`restoring`). Nothing is written. */
  restore(stored: StoredOrganisation): void {
    const { logger, config } = this.#env;
    restoreOrganisation(stored, { roles: this.roles, org: this.#org, pending: this.#pending, logger, keepTerminated: config.terminatedAgentsInMemory });
  }

  /**
   * Terminates `agentId` and every descendant; only its parent may (or `user` for a top-level
   * agent). `drain` lets the subtree finish its work first, for up to `drainTimeoutMs` (the
   * runtime's `drainTimeoutMs` by default); `abort` cancels it at once.
   */
  async terminate(input: { agentId: string; by: string; reason: string; mode: TerminationMode; drainTimeoutMs?: number }): Promise<void> {
    const record = this.requireLive(input.agentId);
    const allowed = record.parentAgentId ?? 'user';
    if (input.by !== allowed) {
      throw new TroupeError('not_parent', `${input.by} may not terminate ${input.agentId}: only its parent ${allowed} may`, {
        context: { agentId: input.agentId, by: input.by },
      });
    }
    const drainTimeoutMs = input.drainTimeoutMs ?? this.#env.config.drainTimeoutMs;
    // Restored agents of the subtree not started yet start now, so their waiting Tasks are drained or cancelled as any agent's are.
    for (const id of this.#org.subtree(input.agentId)) this.#pending.start(id);
    await this.#drains.track(this.#stopSubtree(input.agentId, input.by, input.reason, { why: 'terminate', mode: input.mode, drainTimeoutMs }));
  }

  /**
   * Stops every live agent for a shutdown. When the journal keeps the organisation, they are only
   * stopped: nothing is recorded as terminated and their unanswered work is handed back on restart.
   */
  async stopAll(): Promise<void> {
    // Restored agents not started yet stay as the store holds them: their work is handed back on the next start.
    this.#pending.close();
    // Terminations draining now end now: what they had left is cancelled and they are recorded.
    this.#drains.cutShort();
    const live = new Set(this.#agents.keys());
    const topLevel = [...live].filter((id) => !live.has(this.parentOf(id) ?? ''));
    await Promise.all(topLevel.map((id) => this.#stopSubtree(id, 'runtime', 'shutdown', { why: 'shutdown', mode: 'abort', drainTimeoutMs: 0 })));
    await this.#drains.settled();
  }

  /**
   * Stops a subtree, parents first so no one starts new work, and waits for every actor to end.
   * A drain first closes the subtree's intake and waits until none of it has work left (or the
   * deadline), so children have drained before their parent is released; then it stops as an abort does.
   */
  async #stopSubtree(rootId: string, by: string, reason: string, stop: Stop): Promise<void> {
    const resumable = stop.why === 'shutdown' && this.#env.journal.persistent;
    const order = this.#org.subtree(rootId).filter((id) => this.#agents.has(id));
    // Those already draining or stopping (a concurrent terminate or shutdown) are that one's to stop: waited for below, recorded once.
    const mine = order.flatMap((id) => {
      const agent = this.#agents.get(id);
      return agent?.active === true ? [agent] : [];
    });
    const terminations = mine.map(({ id }) => {
      const termination = { agentId: id, terminatedBy: id === rootId ? by : (this.parentOf(id) ?? by), at: this.#env.clock.now(), reason, mode: stop.mode };
      this.#org.recordTermination(termination);
      return termination;
    });
    const left = stop.mode === 'drain' ? await this.#drains.drain(mine, order, reason, stop.drainTimeoutMs) : reason;
    for (const agent of mine) agent.terminate(by, left, resumable);
    if (stop.why === 'terminate') await Promise.all(terminations.map((termination) => this.#env.journal.terminated(termination)));
    await Promise.all(
      order.map(async (id) => {
        const agent = this.#agents.get(id);
        if (agent === undefined) return;
        await agent.stopped();
        this.#forget(agent, resumable);
      }),
    );
  }

  #start(record: AgentRecord, role: Role, origin: 'new' | 'restored'): Agent {
    const agent = new Agent(this.#env, this.#machine, record, role, origin);
    this.#usage.track(record.id, agent.usage);
    // Registered before it starts, so everything its actor does finds it.
    this.#agents.set(record.id, agent);
    agent.start();
    return agent;
  }

  #forget(agent: Agent, resumable: boolean): void {
    if (this.#agents.get(agent.id) !== agent) return;
    // Done by the machine's release step already, unless the actor stopped on an error first.
    agent.release(resumable);
    this.#agents.delete(agent.id);
    this.#activity.track(agent.id, false);
    this.#retire(this.#org.markTerminated(agent.id, this.#env.clock.now()));
  }

  /** Agents that left memory: their usage only counts in the total from now on. */
  #retire(gone: readonly string[]): void {
    for (const agentId of gone) this.#usage.retire(agentId);
  }
}

/** Why a subtree stops, and how. */
interface Stop {
  readonly why: 'terminate' | 'shutdown';
  readonly mode: TerminationMode;
  readonly drainTimeoutMs: number;
}

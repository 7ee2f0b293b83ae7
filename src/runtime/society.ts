import type { Observable } from 'rxjs';
import type { EventBus, NodeDirectory } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError, describeError } from '../errors.js';
import { type IdGenerator, agentIdFor } from '../ids.js';
import type { AgentRecord, Role, Termination } from '../org/index.js';
import { Actions, type TerminationMode, type ToolPolicy } from '../task/index.js';
import type { CompressibleConversation, FactSearchRequest, FoundFact, RememberRequest, RememberedFact, SocietyPort } from '../tools/index.js';
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
import { rememberFact, searchOwnFacts } from './memory/ownFacts.js';
import type { About, HostAgent, StopHosted } from './nodes/nodeProtocol.js';
import type { RemoteAgent } from './nodes/remoteAgent.js';
import { RemoteAgents } from './nodes/remoteAgents.js';

/** What a society is made with: every agent's environment but the society and its activity tracker. */
export type SocietyDeps = Omit<AgentEnvironment, 'society' | 'activity'>;

/**
 * Where a society's agents run. An owner given its society's `directory` places each new agent
 * whose role a node announced on that node; a node's own society acts on the organisation
 * through `portFor` (its requests to the owner) instead of itself.
 */
export interface SocietyHosting {
  readonly directory?: NodeDirectory;
  /** How long a node has to confirm a placement or a stop (default 10 s). */
  readonly nodeRequestTimeoutMs?: number;
  /** What becomes of work given to an agent whose node is unreachable (default `fail`). */
  readonly whileUnreachable?: 'fail' | 'wait';
  /** The port the society's agents' meta-tools act through; the society itself by default. */
  readonly portFor?: (society: Society) => SocietyPort;
}

/** Ids no agent may take: the human's endpoint, the supervisor, the observation sink, the owner of a society on NATS and its nodes' common address. */
const reservedIds: ReadonlySet<string> = new Set(['user', 'runtime', 'observer', 'owner', 'nodes']);

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
  /** Agents of this organisation hosted on other nodes. */
  readonly #remote: RemoteAgents;

  constructor(deps: SocietyDeps, hosting: SocietyHosting = {}) {
    this.roles = new RoleBook(deps);
    this.#org = new OrgTree(deps.config.terminatedAgentsInMemory);
    this.#pending = new PendingAgents({ bus: deps.bus, logger: deps.logger, start: (record, role) => this.#start(record, role, 'restored') });
    this.#remote = new RemoteAgents({
      ...deps,
      activity: this.#activity,
      directory: hosting.directory,
      requestTimeoutMs: hosting.nodeRequestTimeoutMs ?? 10_000,
      whileUnreachable: hosting.whileUnreachable ?? 'fail',
      maxTracked: deps.config.mailboxLimit + deps.config.maxLanesPerAgent,
      onLost: (agent, why) => void this.#lose(agent, why),
      undeliverable: (agentId) => this.#undeliverable(agentId),
      answered: (agentId, taskId) => deps.journal.answered(agentId, taskId),
    });
    const { agents, pending, remote } = { agents: this.#agents, pending: this.#pending, remote: this.#remote };
    this.#limits = new SpawnLimits(deps.config, {
      get liveCount() {
        return agents.size + pending.size + remote.size;
      },
      liveChildren: (agentId) => [...this.#org.children(agentId)].filter((id) => this.#isLive(id)).length,
      depthOf: (agentId) => this.#org.depthOf(agentId),
    });
    this.#env = { ...deps, society: hosting.portFor?.(this) ?? this, activity: this.#activity };
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

  /** The agent `agentId` if it is hosted on another node. */
  remoteAgent(agentId: string): RemoteAgent | undefined {
    return this.#remote.get(agentId);
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
    return [...this.#agents.keys(), ...this.#remote.ids()];
  }

  parentOf(agentId: string): string | null {
    return this.#org.parentOf(agentId);
  }

  /** Whether `agentId` is live and not being terminated, so it may take new work and children (a restored agent not started yet may). */
  isActive(agentId: string): boolean {
    if (this.#org.get(agentId)?.status !== 'active') return false;
    return this.#agents.get(agentId)?.active === true || this.#pending.has(agentId) || this.#remote.get(agentId)?.active === true;
  }

  requireLive(agentId: string): AgentRecord {
    const record = this.record(agentId);
    if (record === undefined) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
    const remote = this.#remote.get(agentId);
    if (remote?.reachable === false) {
      throw new TroupeError('agent_unreachable', `agent "${agentId}" is unreachable: its node ${remote.node} is silent`, {
        context: { agentId, node: remote.node },
      });
    }
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

  /** The context of a running agent in `sessionId` (made on first use). */
  conversationOf(agentId: string, sessionId: string): CompressibleConversation {
    return this.requireRunning(agentId).context(sessionId);
  }

  remember(request: RememberRequest): Promise<RememberedFact> {
    return rememberFact(this.#env.memory, request);
  }

  searchMemory(request: FactSearchRequest): Promise<FoundFact[]> {
    return searchOwnFacts(this.#env.memory, request);
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
  async spawn(input: { role: string; parent: string | null; id?: string; parentTask?: About }): Promise<{ agentId: string; roleId: string }> {
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
    // A node that announced the role hosts the agent; else this process does.
    const node = this.#remote.hostFor(role);
    let placed: RemoteAgent | undefined;
    let started: boolean;
    try {
      started = await this.#env.journal.agent(record, () => {
        progress.recorded = true;
        release();
        // The parent may have been terminated while the record was being written.
        if (input.parent !== null && !this.isActive(input.parent)) return false;
        if (node !== undefined) {
          placed = this.#remote.add(record, role, node);
          // Filled in from its node when it stops: model calls are counted where they are made.
          this.#usage.track(record.id, placed.usage);
        } else this.#start(record, role, 'new').notify(Actions.spawned, { agentId: id, roleId: role.id, role: role.name }, input.parentTask ?? null);
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
    if (placed !== undefined) await this.#place(placed, input.parentTask ?? null);
    return { agentId: id, roleId: role.id };
  }

  /** Starts an agent already recorded on its node; one its node refuses or never confirms is recorded terminated, and the spawn fails. */
  async #place(agent: RemoteAgent, about: About | null): Promise<void> {
    try {
      await agent.place(about);
      this.#env.logger.info({ agentId: agent.id, node: agent.node, role: agent.role.name }, 'agent placed on a node');
    } catch (error) {
      const why = `could not be placed on node ${agent.node}: ${describeError(error)}`;
      agent.lost(why);
      await this.#lose(agent, why);
      throw error;
    }
  }

  /**
   * Records an agent gone with its node (never placed, restarted, left) terminated, and stops
   * its subtree as a termination does: the rest of the organisation never waits on it.
   */
  async #lose(agent: RemoteAgent, why: string): Promise<void> {
    const termination = { agentId: agent.id, terminatedBy: 'runtime', at: this.#env.clock.now(), reason: why, mode: 'abort' as const };
    this.#org.recordTermination(termination);
    try {
      await this.#env.journal.terminated(termination);
    } finally {
      await this.#drains.track(this.#stopSubtree(agent.id, 'runtime', why, { why: 'terminate', mode: 'abort', drainTimeoutMs: 0 }));
    }
  }

  /**
   * On a node: starts an agent the owner recorded and placed here. The owner checked the
   * society's rules; this node checks only its own `maxLiveAgents`. Its `agent.spawned` notice
   * goes to its parent as anywhere.
   */
  host(input: HostAgent): void {
    const { agent: placed, role, about } = input;
    if (this.#isLive(placed.id)) throw new TroupeError('invalid_input', `agent "${placed.id}" is already hosted here`, { context: { agentId: placed.id } });
    const { maxLiveAgents } = this.#env.config;
    if (this.liveIds().length >= maxLiveAgents) throw new TroupeError('agent_limit', `this node hosts ${maxLiveAgents} agents, its limit (maxLiveAgents)`);
    const record: AgentRecord = { ...placed, terminatedAt: null, status: 'active' };
    this.#org.add(record);
    this.#start(record, role, 'new').notify(Actions.spawned, { agentId: record.id, roleId: role.id, role: role.name }, about);
  }

  /**
   * On a node: stops an agent it hosts, as the owner asked (its subtree's order is the owner's),
   * and gives its model usage, for the owner's ledger; one already gone is no error (no usage).
   */
  async stopHosted(stop: StopHosted): Promise<ModelUsage | undefined> {
    const agent = this.#agents.get(stop.agentId);
    if (agent === undefined) return undefined;
    agent.terminate(stop.by, stop.reason, stop.resumable);
    await agent.stopped();
    this.#forget(agent, stop.resumable);
    return { ...agent.usage };
  }

  /** Stops watching the society's nodes and their agents' work; after `stopAll`. */
  close(): void {
    this.#remote.close();
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
    const live = new Set(this.liveIds());
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
    const order = this.#org.subtree(rootId).filter((id) => this.#agents.has(id) || this.#remote.has(id));
    // Those already draining or stopping (a concurrent terminate or shutdown) are that one's to stop: waited for below, recorded once.
    const mine = order.flatMap((id): (Agent | RemoteAgent)[] => {
      const agent = this.#agents.get(id);
      if (agent !== undefined) return agent.active ? [agent] : [];
      const remote = this.#remote.get(id);
      return remote?.unclaimed === true ? [remote] : [];
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
        const agent = this.#agents.get(id) ?? this.#remote.get(id);
        if (agent === undefined) return;
        await agent.stopped();
        this.#forget(agent, resumable);
      }),
    );
  }

  /**
   * Why work sent to `agentId` from another node can never be done here: it is not an agent of
   * the organisation, or not a live one. Undefined for a live agent and for the society's other
   * endpoints (the user, the owner, nodes, which the bus reaches by other ways).
   */
  #undeliverable(agentId: string): TroupeError | undefined {
    if (reservedIds.has(agentId) || this.#isLive(agentId)) return undefined;
    const record = this.#org.get(agentId) ?? this.#env.journal.agentRecord(agentId);
    if (record === undefined) return new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
    return new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
  }

  /** Whether `agentId` runs here or on a node, or waits here to be restored. */
  #isLive(agentId: string): boolean {
    return this.#agents.has(agentId) || this.#pending.has(agentId) || this.#remote.has(agentId);
  }

  #start(record: AgentRecord, role: Role, origin: 'new' | 'restored'): Agent {
    const agent = new Agent(this.#env, this.#machine, record, role, origin);
    this.#usage.track(record.id, agent.usage);
    // Registered before it starts, so everything its actor does finds it.
    this.#agents.set(record.id, agent);
    agent.start();
    return agent;
  }

  #forget(agent: Agent | RemoteAgent, resumable: boolean): void {
    if (agent instanceof Agent) {
      if (this.#agents.get(agent.id) !== agent) return;
      // Done by the machine's release step already, unless the actor stopped on an error first.
      agent.release(resumable);
      this.#agents.delete(agent.id);
    } else {
      if (this.#remote.get(agent.id) !== agent) return;
      this.#remote.remove(agent.id);
    }
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

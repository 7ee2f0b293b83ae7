import type { Observable } from 'rxjs';
import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { TroupeError } from '../../errors.js';
import type { IdGenerator } from '../../ids.js';
import type { AgentRecord, Role, Termination } from '../../org/index.js';
import { Actions, type JsonValue, type TaskRef, type TerminationMode, type ToolPolicy, refTo } from '../../task/index.js';
import type {
  CompressibleConversation,
  FactSearchRequest,
  FoundFact,
  GraphAccess,
  GraphOperation,
  RememberRequest,
  RememberedFact,
  RoleRequest,
  RoutedWork,
  SocietyPort,
  WorkRequest,
} from '../../tools/index.js';
import type { Agent, AgentEnvironment, ModelUsage } from '../agent/index.js';
import { withCheckedHandoffs } from '../agent/handoffTools.js';
import type { StoredOrganisation } from '../journal/journal.js';
import { terminatedInMemory } from '../config/config.js';
import { OrgTree } from './orgTree.js';
import { LiveAgents, type SocietyDeps } from './liveAgents.js';
import type { NodePlacement } from './nodePlacement.js';
import type { PendingAgents } from './pendingAgents.js';
import { RoleBook } from './roleBook.js';
import { restoreOrganisation } from './restoredOrganisation.js';
import { SpawnLimits } from './spawnLimits.js';
import { SubtreeStops } from './subtreeStops.js';
import { undeliverableTo } from './reservedIds.js';
import { mayTerminate } from './terminationRule.js';
import { type IdleReaper, idleReaper } from './idleReaper.js';
import { rememberFact, searchOwnFacts } from '../memory/ownFacts.js';
import { graphOperation } from '../memory/ownGraph.js';
import type { HostAgent, StopHosted } from './remote/nodeProtocol.js';
import type { RemoteAgent } from './remote/remoteAgent.js';
import { routeWork } from './routedWork.js';
import { WorkRouter } from './workRouter.js';
import { type SpawnInput, Spawner } from './spawner.js';

export type { SocietyDeps } from './liveAgents.js';

/**
 * Where a society's agents run. An owner given its society's `directory` places each new agent
 * whose role a node announced on that node; a node's own society acts on the organisation
 * through `portFor` (its requests to the owner) instead of itself.
 */
export interface SocietyHosting extends NodePlacement {
  /** The port the society's agents' meta-tools act through; the society itself by default. */
  readonly portFor?: (society: Society) => SocietyPort;
}

/**
 * The organisation as data, and its rules: roles, agent records (the tree, as parent links) and
 * terminations. Only a parent terminates its child, termination cascades, a terminated agent
 * takes no more work or children. Who runs where is `LiveAgents`; how a subtree stops is
 * `SubtreeStops`. It is the port the meta-tools act through. Tests reach it with `societyOf`
 * (troupe/testing).
 */
export class Society implements SocietyPort {
  readonly roles: RoleBook;
  readonly #org: OrgTree;
  readonly #live: LiveAgents;
  /** Emits whenever an agent becomes busy or quiet. */
  readonly activity$: Observable<void>;
  readonly #env: AgentEnvironment;
  readonly #stops: SubtreeStops;
  readonly #limits: SpawnLimits;
  /** Terminates children idle past `reapIdleChildrenAfterMs`, when it is set. */
  readonly #reaper: IdleReaper | undefined;
  readonly #router: WorkRouter;
  readonly #spawner: Spawner;

  constructor(deps: SocietyDeps, hosting: SocietyHosting = {}) {
    this.roles = new RoleBook(deps);
    this.#router = new WorkRouter({
      roles: this.roles,
      embedder: deps.memorySettings.embedder,
      model: deps.model,
      settings: deps.config.routing,
      skills: deps.skills.registry,
    });
    this.#org = new OrgTree(terminatedInMemory(deps.config, deps.journal.persistent));
    this.#live = new LiveAgents(deps, hosting, this.#org, {
      port: hosting.portFor?.(this) ?? this,
      lost: (agent, why) => void this.#stops.lose(agent, why),
      undeliverable: (agentId) => undeliverableTo(agentId, this.#live.has(agentId), (id) => this.#org.get(id) ?? this.#env.journal.agentRecord(id)),
    });
    const live = this.#live;
    this.#limits = new SpawnLimits(deps.config, {
      get liveCount() {
        return live.count;
      },
      liveChildren: (agentId) => [...this.#org.children(agentId)].filter((id) => live.has(id)).length,
      depthOf: (agentId) => this.#org.depthOf(agentId),
    });
    this.#env = live.env;
    this.activity$ = live.activity$;
    this.#stops = new SubtreeStops(this.#org, live);
    this.#spawner = new Spawner({ env: this.#env, roles: this.roles, org: this.#org, live, limits: this.#limits, stops: this.#stops, society: this });
    const { drainTimeoutMs } = deps.config;
    this.#reaper = idleReaper(deps.config, {
      clock: deps.clock,
      logger: deps.logger,
      org: this.#org,
      activity: live.activity,
      liveIds: () => live.ids(),
      isActive: (agentId) => this.isActive(agentId),
      terminate: (agentId, reason) => this.#stops.terminate(agentId, 'runtime', reason, { mode: 'drain', drainTimeoutMs, about: null }),
    });
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
    return this.#live.local(agentId);
  }

  /**
   * Cancels the Task `taskId` wherever an agent of this process holds it (its lane's turn is
   * stopped, or it leaves the mailbox) and answers it `canceled`; returns whether one did. Agents
   * hold Tasks only while they are not at rest, so only those are asked.
   */
  cancelTask(taskId: string, by: string, reason: string): boolean {
    for (const agent of this.#live.forGauges().stirring) if (agent.cancel(taskId, by, reason)) return true;
    return false;
  }

  /**
   * The live agent `agentId`; a restored agent not started yet starts now, ahead of the
   * background restore, with the Tasks it had waiting, so whatever it is given next queues behind them.
   */
  startRestored(agentId: string): Agent | undefined {
    return this.#live.startRestored(agentId);
  }

  /** The agent `agentId` if it is hosted on another node. */
  remoteAgent(agentId: string): RemoteAgent | undefined {
    return this.#live.remote.get(agentId);
  }

  /** The live agents as gauges read them (see `LiveAgents.forGauges`): to read, never to change. */
  forGauges(): ReturnType<LiveAgents['forGauges']> {
    return this.#live.forGauges();
  }

  /** Restored agents whose actors have not started yet (see `restore`), and how far their restore has got. */
  get restoring(): PendingAgents {
    return this.#live.pending;
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
    return this.#live.ids();
  }

  parentOf(agentId: string): string | null {
    return this.#org.parentOf(agentId);
  }

  /** Whether `agentId` is live and not being terminated, so it may take new work and children (a restored agent not started yet may). */
  isActive(agentId: string): boolean {
    return this.#org.get(agentId)?.status === 'active' && this.#live.isActive(agentId);
  }

  requireLive(agentId: string): AgentRecord {
    const record = this.record(agentId);
    if (record === undefined) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
    const remote = this.#live.remote.get(agentId);
    // With durable mailboxes its Tasks wait for its next node instead.
    if (remote?.reachable === false && !remote.movable) {
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

  /** Stores a fact for an agent's model, with a scope its role's policy allows (`rememberScopes`). */
  remember(request: RememberRequest): Promise<RememberedFact> {
    return rememberFact(this.#env.memory, request, this.#live.local(request.agentId)?.role);
  }

  searchMemory(request: FactSearchRequest): Promise<FoundFact[]> {
    return searchOwnFacts(this.#env.memory, request);
  }

  /** A graph tool's operation, on the graph its agent's tool policy lets it use (`graphs`: its own by default). */
  graph(access: GraphAccess, operation: GraphOperation): Promise<Readonly<Record<string, JsonValue>>> {
    return graphOperation(this.#env.memory, access, operation, this.#live.local(access.agentId)?.settings.tools);
  }

  /** The agent for work described by a role or in words: an idle one of the role chosen, else a new child of the caller (see `routeWork`). */
  routeWork(request: WorkRequest): Promise<RoutedWork> {
    return routeWork(request, {
      router: this.#router,
      agents: () => this.#org.all(),
      isActive: (agentId) => this.isActive(agentId),
      isBusy: (agentId) => this.#live.activity.isBusy(agentId),
      spawn: (input) => this.spawn(input),
    });
  }

  /** Model calls and tokens of an agent, live or terminated. */
  usageOf(agentId: string): ModelUsage | undefined {
    return this.#live.usageOf(agentId);
  }

  /** Model calls and tokens of every agent so far, including those gone from memory. */
  totalUsage(): ModelUsage {
    return this.#live.totalUsage();
  }

  /** How many live agents are working or have mail. */
  get busyCount(): number {
    return this.#live.activity.busyCount;
  }

  async createRole(input: RoleRequest): Promise<{ roleId: string; name: string }> {
    const role = await this.addRole(withCheckedHandoffs(input, this.#env.tools));
    return { roleId: role.id, name: role.name };
  }

  /** Creates a role and resolves once it is recorded; a role that could not be recorded is taken back. */
  async addRole(input: { name: string; prompt: string; description?: string; createdBy: string; tools?: ToolPolicy; handoffs?: string[] }): Promise<Role> {
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
  spawn(input: SpawnInput): Promise<{ agentId: string; roleId: string }> {
    return this.#spawner.spawn(input);
  }

  /**
   * On a node: starts an agent the owner recorded and placed here. The owner checked the
   * society's rules; this node checks only its own `maxLiveAgents`. Its `agent.spawned` notice
   * goes to its parent as anywhere.
   */
  host(input: HostAgent): void {
    const { agent: placed, role, about } = input;
    if (this.#live.has(placed.id)) throw new TroupeError('invalid_input', `agent "${placed.id}" is already hosted here`, { context: { agentId: placed.id } });
    const { maxLiveAgents } = this.#env.config;
    if (this.liveIds().length >= maxLiveAgents) throw new TroupeError('agent_limit', `this node hosts ${maxLiveAgents} agents, its limit (maxLiveAgents)`);
    const record: AgentRecord = { ...placed, terminatedAt: null, status: 'active' };
    this.#org.add(record);
    const agent = this.#live.start(record, role, 'new');
    // A moved agent's parent heard of it when it was first spawned.
    if (input.moved !== true) agent.notify(Actions.spawned, { agentId: record.id, roleId: role.id, role: role.name }, about);
  }

  /**
   * On a node: stops an agent it hosts, as the owner asked (its subtree's order is the owner's),
   * and gives its model usage, for the owner's ledger; one already gone is no error (no usage).
   */
  async stopHosted(stop: StopHosted): Promise<ModelUsage | undefined> {
    const agent = this.#live.local(stop.agentId);
    if (agent === undefined) return undefined;
    agent.terminate(stop.by, stop.reason, stop.resumable, stop.about ?? null);
    await agent.stopped();
    this.#live.forget(agent, stop.resumable);
    return { ...agent.usage };
  }

  /** Stops watching the society's nodes and their agents' work; after `stopAll`. */
  close(): void {
    this.#reaper?.close();
    this.#live.close();
  }

  /** Puts back an organisation read from the journal; its active agents start in the background (`restoring`). Nothing is written. */
  restore(stored: StoredOrganisation): void {
    const { logger, config } = this.#env;
    restoreOrganisation(stored, {
      roles: this.roles,
      org: this.#org,
      pending: this.#live.pending,
      logger,
      keepTerminated: terminatedInMemory(config, this.#env.journal.persistent),
    });
  }

  /**
   * Terminates `agentId` and every descendant; only its parent may (or `user` for a top-level
   * agent). `drain` lets the subtree finish its work first, for up to `drainTimeoutMs` (the
   * runtime's `drainTimeoutMs` by default); `abort` cancels it at once.
   */
  async terminate(input: {
    agentId: string;
    by: string;
    reason: string;
    mode: TerminationMode;
    drainTimeoutMs?: number;
    /** The turn asking, whose session the `agent.terminated` notices join. */
    parentTask?: TaskRef | null;
  }): Promise<{ mode: TerminationMode }> {
    const known = this.record(input.agentId);
    // Asked again by its parent (a turn resumed after a crash runs its terminate_agent again): done already.
    if (known?.status === 'terminated' && mayTerminate(known, input.by, (id) => this.record(id))) {
      return { mode: this.#org.termination(input.agentId)?.mode ?? input.mode };
    }
    const record = this.requireLive(input.agentId);
    if (!mayTerminate(record, input.by, (id) => this.record(id))) {
      const allowed = record.parentAgentId ?? 'user';
      throw new TroupeError('not_parent', `${input.by} may not terminate ${input.agentId}: only its parent ${allowed} may`, {
        context: { agentId: input.agentId, by: input.by },
      });
    }
    await this.#stops.terminate(input.agentId, input.by, input.reason, {
      mode: input.mode,
      drainTimeoutMs: input.drainTimeoutMs ?? this.#env.config.drainTimeoutMs,
      about: refTo(input.parentTask),
    });
    return { mode: input.mode };
  }

  /**
   * Stops every live agent for a shutdown. When the journal keeps the organisation, they are only
   * stopped: nothing is recorded as terminated and their unanswered work is handed back on restart.
   */
  stopAll(): Promise<void> {
    // A shutdown stops agents to resume them later: none is let go for being idle meanwhile.
    this.#reaper?.close();
    return this.#stops.stopAll();
  }
}

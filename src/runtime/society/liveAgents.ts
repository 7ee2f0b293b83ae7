import type { Observable } from 'rxjs';
import { TroupeError } from '../../errors.js';
import { parseOrThrow } from '../../task/index.js';
import type { AgentRecord, Role } from '../../org/index.js';
import type { SocietyPort } from '../../tools/index.js';
import { ActivityTracker } from '../agent/activity.js';
import { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage } from '../agent/index.js';
import { provideAgentMachine } from '../agent/machineImplementations.js';
import { type NodePlacement, NodePlacementLimitsSchema } from './nodePlacement.js';
import type { OrgTree } from './orgTree.js';
import { PendingAgents } from './pendingAgents.js';
import { UsageLedger } from './usageLedger.js';
import type { RemoteAgent } from './remote/remoteAgent.js';
import { RemoteAgents } from './remote/remoteAgents.js';

/** What a society is made with: every agent's environment but the society and its activity tracker. */
export type SocietyDeps = Omit<AgentEnvironment, 'society' | 'activity'>;

/** What the live agents hand back to the society: the rules they do not know. */
export interface LiveAgentsRules {
  /** The port agents' meta-tools act through. */
  readonly port: SocietyPort;
  /** An agent gone with its node: the society records its termination. */
  readonly lost: (agent: RemoteAgent, why: string) => void;
  /** Why work sent from a node to `agentId` can never be done (undefined: it can). */
  readonly undeliverable: (agentId: string) => TroupeError | undefined;
}

/**
 * Who runs where: the agents whose actors run in this process, the restored ones waiting to
 * start, and those hosted on other nodes; with their model usage and whether each is busy.
 * The society decides who may exist; this is where the living are found.
 */
export class LiveAgents {
  readonly #local = new Map<string, Agent>();
  /** Usage of the agents in memory, and the sum of those gone, so the society's usage stays whole. */
  readonly #usage = new UsageLedger();
  readonly activity: ActivityTracker;
  /** Restored agents whose actors have not started yet: live in every count, started by the background restore or their first Task. */
  readonly pending: PendingAgents;
  readonly remote: RemoteAgents;
  readonly env: AgentEnvironment;
  readonly #machine: AgentMachine;

  constructor(
    deps: SocietyDeps,
    hosting: NodePlacement,
    private readonly org: OrgTree,
    rules: LiveAgentsRules,
  ) {
    this.activity = new ActivityTracker(() => deps.clock.now());
    this.env = { ...deps, society: rules.port, activity: this.activity };
    this.pending = new PendingAgents({ bus: deps.bus, logger: deps.logger, start: (record, role) => this.start(record, role, 'restored') });
    // Durable mailboxes serve agents on nodes; without a directory every agent runs here.
    const { directory, nodeRequestTimeoutMs, whileUnreachable } = hosting;
    const placement = parseOrThrow(NodePlacementLimitsSchema, { nodeRequestTimeoutMs, whileUnreachable }, 'nodes');
    const mailboxes = directory === undefined ? undefined : deps.bus.transport.mailboxes;
    if (mailboxes !== undefined && placement.whileUnreachable === 'fail') {
      throw new TroupeError(
        'invalid_input',
        "nodes.whileUnreachable 'fail' would answer work that the durable mailboxes keep for the agent's next node; use 'wait' (their default)",
      );
    }
    this.remote = new RemoteAgents({
      ...deps,
      activity: this.activity,
      directory,
      mailboxes,
      requestTimeoutMs: placement.nodeRequestTimeoutMs,
      whileUnreachable: placement.whileUnreachable ?? (mailboxes === undefined ? 'fail' : 'wait'),
      maxTracked: deps.config.mailboxLimit + deps.config.maxLanesPerAgent,
      onLost: rules.lost,
      undeliverable: rules.undeliverable,
      answered: (agentId, taskId) => deps.journal.answered(agentId, taskId),
    });
    this.#machine = provideAgentMachine((agentId) => this.#local.get(agentId), deps.logger);
  }

  get activity$(): Observable<void> {
    return this.activity.changes$;
  }

  /** The agent `agentId` if its actor runs in this process. */
  local(agentId: string): Agent | undefined {
    return this.#local.get(agentId);
  }

  /** The local agent `agentId`; a restored agent not started yet starts now. */
  startRestored(agentId: string): Agent | undefined {
    return this.#local.get(agentId) ?? this.pending.start(agentId);
  }

  /** The agent `agentId` wherever it runs (a restored agent not started yet has no object: see `startRestored`). */
  running(agentId: string): Agent | RemoteAgent | undefined {
    return this.#local.get(agentId) ?? this.remote.get(agentId);
  }

  /** The agent `agentId` if it runs and no termination or shutdown has claimed it yet. */
  unclaimed(agentId: string): Agent | RemoteAgent | undefined {
    const local = this.#local.get(agentId);
    if (local !== undefined) return local.active ? local : undefined;
    const remote = this.remote.get(agentId);
    return remote?.unclaimed === true ? remote : undefined;
  }

  /** Whether `agentId` runs here or on a node, or waits here to be restored. */
  has(agentId: string): boolean {
    return this.#local.has(agentId) || this.pending.has(agentId) || this.remote.has(agentId);
  }

  /** Whether `agentId` may take new work: live and not stopping (a restored agent not started yet may). */
  isActive(agentId: string): boolean {
    return this.#local.get(agentId)?.active === true || this.pending.has(agentId) || this.remote.get(agentId)?.active === true;
  }

  /**
   * What gauges read of the agents: how many run here at rest (running, idle, nothing queued:
   * counted, never read), those that run here not at rest, and those hosted on nodes. A society of
   * 10,000 mostly idle agents is then read in the time of its few busy ones.
   */
  forGauges(): { readonly atRest: number; readonly stirring: Iterable<Agent>; readonly remote: Iterable<RemoteAgent> } {
    const stirring: Agent[] = [];
    for (const agentId of this.activity.stirring()) {
      const agent = this.#local.get(agentId);
      if (agent !== undefined) stirring.push(agent);
    }
    return { atRest: this.#local.size - stirring.length, stirring, remote: this.remote.values() };
  }

  /** Agents with an actor here or on a node. */
  ids(): string[] {
    return [...this.#local.keys(), ...this.remote.ids()];
  }

  /** Every live agent, restored ones waiting to start included: what the society's limits count. */
  get count(): number {
    return this.#local.size + this.pending.size + this.remote.size;
  }

  usageOf(agentId: string): ModelUsage | undefined {
    return this.#usage.of(agentId);
  }

  totalUsage(): ModelUsage {
    return this.#usage.total();
  }

  /** Starts an agent's actor in this process. */
  start(record: AgentRecord, role: Role, origin: 'new' | 'restored'): Agent {
    const agent = new Agent(this.env, this.#machine, record, role, origin);
    this.#usage.track(record.id, agent.usage);
    // Registered before it starts, so everything its actor does finds it.
    this.#local.set(record.id, agent);
    agent.start();
    return agent;
  }

  /** Registers an agent about to be placed on `node`; its usage is filled in from its node when it stops. */
  place(record: AgentRecord, role: Role, node: string): RemoteAgent {
    const placed = this.remote.add(record, role, node);
    this.#usage.track(record.id, placed.usage);
    return placed;
  }

  /** Drops a stopped agent from the living, and records it terminated in the tree. */
  forget(agent: Agent | RemoteAgent, resumable: boolean): void {
    if (agent instanceof Agent) {
      if (this.#local.get(agent.id) !== agent) return;
      // Done by the machine's release step already, unless the actor stopped on an error first.
      agent.release(resumable);
      this.#local.delete(agent.id);
    } else {
      if (this.remote.get(agent.id) !== agent) return;
      this.remote.remove(agent.id);
    }
    this.activity.track(agent.id, false);
    this.activity.forget(agent.id);
    this.retire(this.org.markTerminated(agent.id, this.env.clock.now()));
  }

  /** Agents that left memory: their usage only counts in the total from now on. */
  retire(gone: readonly string[]): void {
    for (const agentId of gone) this.#usage.retire(agentId);
  }

  /** Stops watching the society's nodes and their agents' work. */
  close(): void {
    this.remote.close();
  }
}

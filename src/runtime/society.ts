import type { Observable } from 'rxjs';
import { type InspectionEvent, toPromise } from 'xstate';
import type { Clock } from '../clock.js';
import type { EventBus } from '../bus/index.js';
import { TroupeError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../llm/index.js';
import { Actions, type Task, createTask } from '../task/index.js';
import type { PlanStepInput, RecordedPlan, SocietyPort, ToolPolicy, ToolRegistry } from '../tools/index.js';
import { type AgentHost, type AgentServices, provideAgentMachine } from './agentBehaviour.js';
import type { AgentCell, AgentRecord, ModelUsage, Termination } from './agentCell.js';
import { ActivityTracker } from './activity.js';
import { startAgentActor } from './agentActor.js';
import type { RuntimeConfig } from './config.js';
import type { Journal } from './journal.js';
import { OrgTree } from './orgTree.js';
import { type Role, RoleBook } from './roleBook.js';
import { type StartingPoint, freshStart, restoredStart } from './startingPoint.js';
import { type LiveAgents, compressContext, delegateTask, recordPlan, sendMessage, warnIfLong } from './toolServices.js';

export interface SocietyDeps extends AgentServices {
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Durable record of the organisation; absent in a memory-only runtime. */
  readonly journal: Journal | undefined;
}

/** Ids no agent may take: the human's endpoint, the supervisor, the observation sink. */
export const reservedIds: ReadonlySet<string> = new Set(['user', 'runtime', 'observer']);

/**
 * The live organisation: roles, agent records (the tree, as parent links), and one flat
 * XState actor per live agent. It enforces the society's rules: only a parent terminates
 * its child, termination cascades, a terminated agent takes no more work.
 */
export class Society implements SocietyPort, AgentHost {
  readonly roles: RoleBook;
  readonly #org = new OrgTree();
  readonly #cells = new Map<string, AgentCell>();
  /** Agents told to terminate whose actors have not stopped yet: they take no new children or work. */
  readonly #terminating = new Set<string>();
  /** Of those, the ones only stopped for a shutdown: they live on in the store. */
  readonly #stopping = new Set<string>();
  readonly #usage = new Map<string, ModelUsage>();
  readonly #activity = new ActivityTracker();
  /** Emits whenever an agent becomes busy or quiet. */
  readonly activity$: Observable<void> = this.#activity.changes$;
  readonly #live: LiveAgents;
  readonly #machine: ReturnType<typeof provideAgentMachine>;
  readonly port: SocietyPort = this;

  constructor(private readonly deps: SocietyDeps) {
    this.roles = new RoleBook(deps);
    this.#machine = provideAgentMachine(this);
    this.#live = {
      deps,
      requireLive: (agentId) => this.#requireLive(agentId),
      liveCell: (agentId) => this.#liveCell(agentId),
      cell: (agentId) => this.#cells.get(agentId),
      parentOf: (agentId) => this.#org.parentOf(agentId),
    };
  }

  get bus(): EventBus { return this.deps.bus; }
  get clock(): Clock { return this.deps.clock; }
  get ids(): IdGenerator { return this.deps.ids; }
  get logger(): Logger { return this.deps.logger; }
  get model(): ModelClient { return this.deps.model; }
  get tools(): ToolRegistry { return this.deps.tools; }
  get config(): RuntimeConfig { return this.deps.config; }

  cell(agentId: string): AgentCell | undefined {
    return this.#cells.get(agentId);
  }

  record(agentId: string): AgentRecord | undefined {
    return this.#org.get(agentId);
  }

  records(): AgentRecord[] {
    return this.#org.all();
  }

  terminations(): readonly Termination[] {
    return this.#org.terminations();
  }

  /** Whether `agentId` is live and not being terminated, so it may take new work and children. */
  isActive(agentId: string): boolean {
    return this.#org.get(agentId)?.status === 'active' && this.#cells.has(agentId) && !this.#terminating.has(agentId);
  }

  /** Ids of live agents. */
  liveIds(): string[] {
    return [...this.#cells.keys()];
  }

  parentOf(agentId: string): string | null {
    return this.#org.parentOf(agentId);
  }

  /** Async so that a durable write can be awaited before it resolves; a broken rule rejects. */
  async createRole(input: { name: string; prompt: string; createdBy: string }): Promise<{ roleId: string; name: string }> {
    const role = await this.addRole(input);
    return { roleId: role.id, name: role.name };
  }

  /** Creates a role and resolves once it is recorded; a role that could not be recorded is taken back. */
  async addRole(input: { name: string; prompt: string; createdBy: string; tools?: ToolPolicy }): Promise<Role> {
    const role = this.roles.create(input);
    try {
      await this.deps.journal?.role(role);
    } catch (error) {
      this.roles.forget(role.id);
      throw error;
    }
    return role;
  }

  /**
   * Creates the agent's record and parent link and starts its actor. Async so that a durable
   * write can be awaited before it resolves; a broken rule rejects. `parentTask`, when given, is
   * the Task the spawn was made for: the spawn notice joins its tree.
   */
  async spawn(input: { role: string; parent: string | null; id?: string; parentTask?: Task }): Promise<{ agentId: string; roleId: string }> {
    const role = this.roles.find(input.role);
    if (role === undefined) throw new TroupeError('invalid_input', `no role "${input.role}"; create it first`);
    if (input.parent !== null) this.#requireLive(input.parent);
    const id = input.id ?? this.deps.ids.agent(role.name);
    if (reservedIds.has(id) || this.#org.has(id)) throw new TroupeError('invalid_input', `agent id "${id}" is taken`);

    const record: AgentRecord = {
      id,
      roleId: role.id,
      parentAgentId: input.parent,
      createdAt: this.deps.clock.now(),
      terminatedAt: null,
      status: 'active',
    };
    this.#org.add(record);
    if (this.deps.journal !== undefined) {
      try {
        await this.deps.journal.agent(record);
      } catch (error) {
        this.#org.remove(id);
        throw error;
      }
      // The parent may have been terminated while the record was being written.
      if (input.parent !== null && !this.isActive(input.parent)) {
        await this.deps.journal.terminated({ agentId: id, terminatedBy: input.parent, at: this.deps.clock.now(), reason: 'parent terminated while spawning' });
        this.#org.markTerminated(id, this.deps.clock.now());
        throw new TroupeError('agent_terminated', `agent "${input.parent}" is terminated`, { context: { agentId: input.parent } });
      }
    }
    this.#start(record, role, freshStart(this.deps, record, role));
    // Only a new agent is announced: one restored after a restart was announced when it was made.
    this.bus.publish(createTask({
      from: id,
      to: record.parentAgentId ?? 'runtime',
      action: Actions.spawned,
      status: 'completed',
      parameters: { agentId: id, roleId: role.id, role: role.name },
      parentId: input.parentTask?.id ?? null,
      sessionId: input.parentTask?.sessionId,
    }, this.deps));
    return { agentId: id, roleId: role.id };
  }

  /**
   * Puts back an organisation read from the store: roles, records and terminations, and an
   * actor (with a fresh conversation) for every agent still active. Nothing is written.
   */
  restore(input: { roles: readonly Role[]; agents: readonly AgentRecord[]; terminations: readonly Termination[] }): void {
    for (const role of input.roles) this.roles.restore(role);
    const byCreation = [...input.agents].sort((a, b) => a.createdAt - b.createdAt);
    for (const record of byCreation) this.#org.add(record);
    for (const termination of input.terminations) this.#org.recordTermination(termination);
    for (const record of byCreation) {
      const role = this.roles.find(record.roleId);
      if (record.status !== 'active') continue;
      if (role === undefined) {
        this.deps.logger.error({ agentId: record.id, roleId: record.roleId }, 'agent not restored: its role is missing');
        continue;
      }
      this.#start(record, role, restoredStart(this.deps, record, role));
    }
  }

  isStopping(agentId: string): boolean {
    return this.#stopping.has(agentId);
  }

  /** `agentId` answered `taskId`: it no longer waits, in the journal either. */
  settled(agentId: string, taskId: string): void {
    this.deps.journal?.answered(agentId, taskId).catch((error: unknown) => {
      this.deps.logger.error({ agentId, taskId, error: String(error) }, 'could not record a Task as answered');
    });
  }

  /** Starts the actor of an agent whose record exists, and connects it to the bus. */
  #start(record: AgentRecord, role: Role, from: StartingPoint): AgentCell {
    const register = (cell: AgentCell): void => {
      this.#usage.set(record.id, cell.usage);
      this.#cells.set(record.id, cell);
    };
    return startAgentActor({ ...this.deps, machine: this.#machine, activity: this.#activity, register }, record, role, from);
  }

  send(input: { from: string; to: string; text: string; parentTask: Task | null; action?: string }): Task {
    return sendMessage(this.#live, input);
  }

  delegate(input: { from: string; to: string; text: string; parentTask: Task; timeoutMs: number; signal: AbortSignal }): Promise<Task> {
    return delegateTask(this.#live, input);
  }

  /** Terminates `agentId` and every descendant; only its parent may (or `user` for a top-level agent). */
  async terminate(input: { agentId: string; by: string; reason: string }): Promise<void> {
    const record = this.#requireLive(input.agentId);
    const allowed = record.parentAgentId ?? 'user';
    if (input.by !== allowed) {
      throw new TroupeError('not_parent', `${input.by} may not terminate ${input.agentId}: only its parent ${allowed} may`, {
        context: { agentId: input.agentId, by: input.by },
      });
    }
    await this.terminateSubtree(input.agentId, input.by, input.reason);
  }

  /** Stops a subtree without the parent check (shutdown uses it). Parents stop first, so no one starts new work. */
  async terminateSubtree(rootId: string, by: string, reason: string, options: { record: boolean } = { record: true }): Promise<void> {
    const order = this.#org.subtree(rootId).filter((id) => this.#cells.has(id));
    const written: Promise<void>[] = [];
    for (const id of order) {
      // Already draining (a concurrent terminate or shutdown): wait for it below, record it once.
      if (this.#terminating.has(id)) continue;
      this.#terminating.add(id);
      const termination = { agentId: id, terminatedBy: id === rootId ? by : this.parentOf(id) ?? by, at: this.deps.clock.now(), reason };
      this.#org.recordTermination(termination);
      // Stopped, not terminated: the stored conversation and waiting Tasks stay for the restart.
      if (!options.record) {
        // Only a stored organisation lives on; in memory a shutdown ends the agents' work for good.
        if (this.deps.journal !== undefined) this.#stopping.add(id);
        this.#cells.get(id)?.conversation.detach();
      }
      this.#cells.get(id)?.actor.send({ type: 'agent.terminate', by, reason });
      // Shutdown only stops actors: the organisation lives on and is restored on restart.
      if (options.record && this.deps.journal !== undefined) written.push(this.deps.journal.terminated(termination));
    }
    await Promise.all(written);
    await Promise.all(order.map(async (id) => {
      const actor = this.#cells.get(id)?.actor;
      if (actor !== undefined) await toPromise(actor).catch(() => undefined);
      this.#forget(id);
    }));
  }

  compressContext(input: { agentId: string; summary: string; keepRecent: number }): { removed: number; kept: number; messages: number } {
    return compressContext(this.#live, input);
  }

  recordPlan(input: { agentId: string; goal: string; steps: readonly PlanStepInput[]; parentTask: Task }): RecordedPlan {
    return recordPlan(this.#live, input);
  }

  warnIfLong(agentId: string, task: Task | null): boolean {
    return warnIfLong(this.#live, agentId, task);
  }

  /** Called by the agent machine's `release` step while draining. */
  release(agentId: string): Promise<void> {
    const cell = this.#cells.get(agentId);
    cell?.inbox?.unsubscribe();
    cell?.conversation.clear();
    return Promise.resolve();
  }

  /** Model calls and tokens of an agent, live or terminated. */
  usageOf(agentId: string): ModelUsage | undefined {
    return this.#usage.get(agentId);
  }

  /** How many live agents are working or have mail. */
  get busyCount(): number {
    return this.#activity.busyCount;
  }

  #forget(agentId: string): void {
    const cell = this.#cells.get(agentId);
    if (cell === undefined) return;
    cell.inbox?.unsubscribe();
    cell.conversation.clear();
    this.#cells.delete(agentId);
    this.#terminating.delete(agentId);
    this.#stopping.delete(agentId);
    this.#activity.track(agentId, false);
    this.#org.markTerminated(agentId, this.deps.clock.now());
  }

  #requireLive(agentId: string): AgentRecord {
    const record = this.#org.get(agentId);
    if (record === undefined) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
    if (record.status === 'terminated' || !this.#cells.has(agentId) || this.#terminating.has(agentId)) {
      throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
    }
    return record;
  }

  #liveCell(agentId: string): AgentCell {
    this.#requireLive(agentId);
    const cell = this.#cells.get(agentId);
    if (cell === undefined) throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated`, { context: { agentId } });
    return cell;
  }
}

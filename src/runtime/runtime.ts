import type { Tracer } from '@opentelemetry/api';
import type { Observable } from 'rxjs';
import { toPromise } from 'xstate';
import type { ShutdownSummary } from '../../machines/runtime.machine.js';
import { z } from 'zod';
import { EventBus } from '../bus/index.js';
import { TroupeError } from '../errors.js';
import type { ModelClient } from '../llm/index.js';
import type { ArtifactRef, Role, StoredArtifact } from '../org/index.js';
import {
  Actions,
  AgentIdSchema,
  type AgentSettingsInput,
  type Approval,
  type ApprovalDecisionInput,
  type Task,
  TaskIdSchema,
  type TerminationMode,
  type ToolPolicy,
  parseOrThrow,
  type Redactor,
} from '../task/index.js';
import type { SkillHub, SkillProblem } from '../skills/index.js';
import { McpServers, type McpServerStatus, type ToolRegistry } from '../tools/index.js';
import type { ModelUsage } from './agent/index.js';
import type { RuntimeConfig } from './config/config.js';
import type { Journal } from './journal/journal.js';
import type { AgentPage, AgentQuery } from './views/agentPage.js';
import type { AgentView } from './views/agentViews.js';
import type { RestoreState } from './society/backgroundRestore.js';
import { closeRuntimeParts } from './runtimeActor.js';
import { runtimeOpening } from './runtimeOpening.js';
import type { RuntimeOptions } from './runtimeOptions.js';
import { startOrganisation } from './organisationStart.js';
import type { MemoryQueryInput, MemoryView } from './views/memoryQuery.js';
import type { GraphQueryInput, GraphView } from './views/graphView.js';
import type { GraphMemory } from '../graph/index.js';
import type { ImportItem, ImportReport, RememberInput, RememberedFactView } from './memory/programMemory.js';
import { type TerminateOptions, type UserTerminateOptions, terminationOf, userTerminationOf } from './society/terminateOptions.js';
import { DurableOrder } from './journal/durableOrder.js';
import type { OutputHandler } from './userEndpoint.js';
import { registerInternals } from './internals.js';
import type { ApprovalEvent } from './approvals/approvalDesk.js';
import { withCheckedHandoffs } from './agent/handoffTools.js';
import { spawnOverrides } from './society/spawnSettings.js';
import { startRecording } from './runRecording.js';
import { type OpenedOptions, type RuntimeParts, type RuntimeSeams, requireRunning, wireRuntime } from './runtimeParts.js';
import { type RuntimeGauges, runtimeGauges } from './society/runtimeGauges.js';
import type { Measurement } from './society/measurements.js';
import type { TraceCarrier } from '../traceContext.js';

/** Why a Task is canceled (`rt.cancel`), as its answer says. */
const CancelReasonSchema = z.string().min(1).max(500);

/** A role as a program creates it (`rt.createRole`). */
type RoleInput = { name: string; prompt: string; description?: string; tools?: ToolPolicy; createdBy?: string; handoffs?: readonly string[] };

/**
 * A running society: the bus, the user endpoint, the root agent and every agent spawned since.
 *
 * @example
 * const rt = await createRuntime();
 * const taskId = await rt.submit('write a haiku about rain');
 * const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
 * await rt.shutdown();
 */
export class Runtime {
  readonly bus: EventBus;
  readonly tools: ToolRegistry;
  readonly model: ModelClient;
  readonly config: RuntimeConfig;
  /** Takes the configured `secrets` (and well-known key shapes) out of text; what every output built on the runtime uses. */
  readonly redactor: Redactor;
  /** The OpenTelemetry tracer the runtime's spans come from (its `tracing.tracerProvider`'s, else the global one): its HTTP and MCP servers trace with it too. */
  readonly tracer: Tracer;
  /** The society's skills (registry, and which are active for whom). */
  readonly skills: SkillHub;
  /** Why each skill given in `skills` that was refused was (file, field, rule). */
  readonly skillProblems: readonly SkillProblem[];
  readonly #parts: RuntimeParts;
  #summary: Promise<ShutdownSummary> | undefined;
  /** The MCP servers whose tools are in `tools`; closed once the agents have stopped. */
  #mcp: McpServers | undefined;

  /**
   * Starts a runtime with its root agent; `createRuntime` is the public way in.
   *
   * @internal
   */
  static async create(options: RuntimeOptions, seams: RuntimeSeams = {}): Promise<Runtime> {
    const { config, memorySettings, redactor, logger, clock, mcpServers, loadedSkills, journal, measurements } = await runtimeOpening(options);
    const made = { ...options, ...seams, logger, clock, redactor, memorySettings, loadedSkills, measurements };
    const runtime = new Runtime(made, config, journal);
    runtime.#mcp = await McpServers.connect(mcpServers, { registry: runtime.tools, logger, redactor, clock, tracer: runtime.tracer });
    const stored = journal.stored(config.inboxLimit);
    const parts = { society: runtime.#parts.society, user: runtime.#parts.user, logger, tools: runtime.tools, root: options.root };
    await startOrganisation(parts, stored).catch((error: unknown) => runtime.#fail(error));
    seams.tap?.started(runtime.bus, runtime.tools);
    // Intake opens: `spawning` → `running`.
    runtime.#parts.actor.send({ type: 'runtime.started' });
    // The agents of a stored organisation start from here on, a slice at a time, while the runtime is already in use.
    runtime.#parts.restore.start();
    // Terminated agents past the limit (it may have been lowered since) are forgotten in the background.
    runtime.#parts.memory.retention.check();
    return runtime;
  }

  // Private: a runtime is only usable once its root agent exists, which `create` awaits.
  private constructor(options: OpenedOptions, config: RuntimeConfig, journal: Journal) {
    const parts = wireRuntime(options, config, journal);
    this.#parts = parts;
    ({ bus: this.bus, tools: this.tools, model: this.model, config: this.config, redactor: this.redactor, skills: this.skills } = parts);
    this.skillProblems = parts.skillProblems;
    this.tracer = parts.tracer;
    registerInternals(this, { society: parts.society, user: parts.user });
  }

  /** A runtime that could not start lets go of what it opened (the bus, the store) and rethrows. */
  async #fail(error: unknown): Promise<never> {
    this.#parts.actor.send({ type: 'runtime.failed', error });
    await this.#close();
    throw error;
  }

  /** `spawning`, `running`, `draining` or `terminated`. */
  get state(): string {
    return this.#parts.actor.getSnapshot().value;
  }

  /** Whether a restart's agents are still being started in the background (the runtime takes work meanwhile). */
  get restoring(): boolean {
    return !this.#parts.restore.state().done;
  }

  /** How far the restore has got: agents to restore, agents restored, Tasks handed back, and whether it is over. */
  restoreState(): RestoreState {
    return this.#parts.restore.state();
  }

  /** Resolves once every restored agent runs (at once without a restore), or a shutdown stopped the restore first. */
  restored(): Promise<RestoreState> {
    return this.#parts.restore.finished;
  }

  // The intake calls are async so that each can await a durable write before it resolves;
  // every broken rule rejects the returned promise (a TroupeError with its code).
  /** `handoffs`: the agents or roles (or `user`) its agents may hand a conversation to, each a `transfer_to_<name>` tool. */
  async createRole(input: RoleInput): Promise<Role> {
    return this.#parts.society.addRole(withCheckedHandoffs({ ...input, createdBy: input.createdBy ?? 'user' }, this.tools));
  }

  /** The roles agents can be spawned with, oldest first. */
  roles(): Role[] {
    return this.#parts.society.roles.list();
  }

  /** Spawns an agent of `role` (name or id), top-level without `parent`; resolves with its id. It inherits its parent's settings but those given. */
  async spawn(input: { role: string; parent?: string } & AgentSettingsInput): Promise<string> {
    this.#requireOpen();
    const parent = input.parent === undefined ? null : parseOrThrow(AgentIdSchema, input.parent, 'parent');
    const settings = spawnOverrides(input);
    return (await this.#parts.society.spawn({ role: input.role, parent, ...(settings === undefined ? {} : { settings }) })).agentId;
  }

  /**
   * Gives the root agent a requirement; resolves with the id of the Task sent (the answer comes
   * back with it). `sessionId` continues a session; without it the Task starts a new session,
   * whose id is the Task's id. Memory and context never mix two sessions. `trace`: the span the
   * work joins (a caller in another process, an A2A client), else the span active here, if any.
   */
  async submit(text: string, options: { sessionId?: string; trace?: TraceCarrier } = {}): Promise<string> {
    this.#requireOpen();
    const sessionId = options.sessionId === undefined ? undefined : parseOrThrow(TaskIdSchema, options.sessionId, 'sessionId');
    // A session handed over to another agent goes on with it.
    const to = sessionId === undefined ? 'root' : (this.#parts.handoffs.agentFor(sessionId) ?? 'root');
    return this.#parts.userIntake.input(to, text, Actions.execute, null, sessionId, options.trace);
  }

  /**
   * Sends the user's message to an agent; resolves with the id of the Task sent. `taskId`
   * continues that Task's tree; `sessionId` names the session (by default `taskId`'s, or a new one).
   */
  async send(agentId: string, text: string, options: { taskId?: string; sessionId?: string } = {}): Promise<string> {
    this.#requireOpen();
    const parentId = options.taskId === undefined ? null : parseOrThrow(TaskIdSchema, options.taskId, 'taskId');
    const sessionId = options.sessionId === undefined ? undefined : parseOrThrow(TaskIdSchema, options.sessionId, 'sessionId');
    return this.#parts.userIntake.input(agentId, text, Actions.message, parentId, sessionId ?? parentId ?? undefined);
  }

  /**
   * Cancels a Task the society is working on: the agent that has it stops its turn (the model
   * call in flight is aborted, no further tool runs) or drops it from its mailbox, and answers it
   * `canceled` (`aborted`, saying why); the work its turn delegated is canceled in turn. Resolves
   * with whether an agent held it (false: unknown, already answered, or held on another node).
   * @example
   * const taskId = await rt.submit('a long report');
   * await rt.cancel(taskId, { reason: 'no longer needed' });
   */
  async cancel(taskId: string, options: { reason?: string } = {}): Promise<boolean> {
    const id = parseOrThrow(TaskIdSchema, taskId, 'taskId');
    const reason = parseOrThrow(CancelReasonSchema, options.reason ?? 'no reason given', 'reason');
    return this.#parts.society.cancelTask(id, 'user', reason);
  }

  /**
   * Terminates an agent and its descendants; `by` must be its parent (`user` for top-level agents).
   * By default they drain: new Tasks are refused, the work they have is finished (up to
   * `drainTimeoutMs`), then they are released; `mode: 'abort'` cancels their work at once.
   */
  async terminate(agentId: string, options: TerminateOptions): Promise<void> {
    await this.#parts.society.terminate(terminationOf(agentId, options));
  }

  /**
   * Terminates an agent for the user, from outside the society (`DELETE /api/agents/:id`): a
   * top-level agent other than root, or a top-level agent's child (a child of root whose parent's
   * turn ended without terminating it). One terminated before is no error. Resolves with how it ended.
   */
  async terminateAsUser(agentId: string, options: UserTerminateOptions = {}): Promise<{ mode: TerminationMode }> {
    return this.#parts.society.terminate(userTerminationOf(agentId, options, 'root'));
  }

  /** The agents in memory: the live ones and the most recent terminated ones (`terminatedAgentsInMemory`). */
  agents(): AgentView[] {
    return this.#parts.views.inMemory();
  }

  /** A page of agents, oldest first, optionally only `active` or `terminated` ones; with an org store, terminated ones are read from it. */
  agentPage(query: AgentQuery = {}): AgentPage<AgentView> {
    return this.#parts.views.page(query);
  }

  agent(agentId: string): AgentView | undefined {
    return this.#parts.views.one(agentId);
  }

  /** The message log of the task tree `rootTaskId` (every Task but streamed thinking, oldest first); undefined without an org store. */
  messageLog(rootTaskId: string, page: { offset?: number; limit?: number } = {}): Task[] | undefined {
    return this.#parts.journal.messageLog(rootTaskId, page);
  }

  /** Artifact `id` a tool call stored, content as given (text or bytes); undefined when unknown or evicted; `store_damaged` naming a damaged one. */
  artifact(id: string): StoredArtifact | undefined {
    return this.#parts.artifacts.get(id);
  }

  /** References to the artifacts the tool calls of a session's Tasks stored, oldest first. */
  artifacts(sessionId: string): ArtifactRef[] {
    return this.#parts.artifacts.list(sessionId);
  }

  /** The tool calls waiting for a person's approval (of `agentId` when given), oldest first (docs/approvals.md). */
  approvals(query: { agentId?: string } = {}): Approval[] {
    return this.#parts.approvals.pending(query.agentId);
  }

  /** Approval `id`, waiting or decided, while its call is not over (its result in, or its Task ended); undefined otherwise. */
  approval(id: string): Approval | undefined {
    return this.#parts.approvals.get(id);
  }

  /**
   * A person's decision on a tool call waiting for approval: `approve`, `reject` (with a message the
   * model reads) or `edit` (other arguments, checked against the tool's schema). Refused with
   * `conflict` when decided already or made on other arguments (`digest`), `unknown_approval`
   * when none waits. Resolves once the decision is durable.
   * @example
   * const [waiting] = rt.approvals();
   * if (waiting !== undefined) await rt.decide(waiting.id, { action: 'approve', digest: waiting.digest });
   */
  decide(id: string, decision: ApprovalDecisionInput): Promise<Approval> {
    return this.#parts.approvals.decide(id, decision);
  }

  /** Every approval asked for and every decision, as they happen (what `troupe run` asks on the terminal from). */
  approvalEvents(): Observable<ApprovalEvent> {
    return this.#parts.approvals.events;
  }

  // What programs read of agents' memories and graphs and write into them; each documented on `MemoryAccess`.

  /** What an agent remembers: counts of its memory's tiers, a page of one, or the L4 facts closest to `search` (docs/memory.md). */
  memory(agentId: string, query: MemoryQueryInput = {}, options: { redactor?: Redactor } = {}): Promise<MemoryView> {
    return this.#parts.access.memory(agentId, query, options.redactor);
  }

  /**
   * Puts a fact into a live agent's long-term memory (L4) without a model turn.
   * @example
   * const fact = await rt.remember('root', { text: 'The user prefers answers in French.', metadata: { source: 'crm' } });
   */
  remember(agentId: string, input: RememberInput): Promise<RememberedFactView> {
    return this.#parts.access.remember(agentId, input);
  }

  /** Removes a fact from a live agent's long-term memory. */
  forget(agentId: string, factId: string): Promise<void> {
    return this.#parts.access.forget(agentId, factId);
  }

  /** Puts many facts and conversation turns into a live agent's long-term memory, all of them or none. */
  importMemory(agentId: string, items: readonly ImportItem[]): Promise<ImportReport> {
    return this.#parts.access.importMemory(agentId, items);
  }

  /** An agent's graph of events and notes (or the society's, `society`): its newest nodes, or a node's neighbourhood. */
  graph(ownerId: string, query: GraphQueryInput = {}, options: { redactor?: Redactor } = {}): Promise<GraphView> {
    return this.#parts.access.graph(ownerId, query, options.redactor);
  }

  /** The graph memory of a live agent (or the society's, `society`), to read and change from a program. */
  graphMemory(ownerId: string): Promise<GraphMemory> {
    return this.#parts.access.graphMemory(ownerId);
  }

  /** Model calls and tokens of the whole society so far. */
  usage(): ModelUsage {
    return this.#parts.society.totalUsage();
  }

  /** What the runtime is doing now, as numbers: agents by state, queues, lanes, model calls, approvals, memory and graph sizes (docs/observability.md). */
  gauges(): RuntimeGauges {
    return runtimeGauges(this.#parts.gauges);
  }

  /** Each model call and each org store commit as it ends, with its duration (and a call's tokens); nothing is timed while nobody subscribes. */
  measurements(): Observable<Measurement> {
    return this.#parts.measurements.events;
  }

  /**
   * The bus's Tasks matching `pattern` (as `bus.on`), in publish order, each answer to the user
   * held until it is durable: what an output shows (the event stream, the CLI) is never an answer
   * a restart would give again.
   */
  events(pattern = '*'): Observable<Task> {
    return this.bus.on(pattern).pipe(DurableOrder.operator(this.#parts.journal, this.#parts.logger, this.#parts.heldUntilDurable));
  }

  /**
   * What agents have sent the user, oldest first: their answers and messages (the last
   * `inboxLimit`; the org store keeps the full log).
   */
  inbox(): readonly Task[] {
    return this.#parts.user.inbox();
  }

  onOutput(handler: OutputHandler): () => void {
    return this.#parts.user.onOutput(handler);
  }

  /** How each MCP server stands: up, being restarted, given up; with its last error and its number of tools. */
  mcpServers(): McpServerStatus[] {
    return this.#mcp?.status() ?? [];
  }

  /** Resolves with the final Task of `taskId` once it reaches the user. */
  waitForAnswer(taskId: string, options: { timeoutMs: number }): Promise<Task> {
    return this.#parts.user.waitForAnswer(taskId, options.timeoutMs, this.#parts.clock);
  }

  /** Stops intake, lets work in flight finish (up to `drainTimeoutMs`), stops every agent and summarises. */
  shutdown(options: { drainTimeoutMs?: number } = {}): Promise<ShutdownSummary> {
    this.#summary ??= (async () => {
      // No more agents are started in the background; those not started keep their work in the store.
      this.#parts.restore.stop();
      this.#parts.tap?.shuttingDown();
      this.#parts.actor.send({ type: 'runtime.shutdown', drainTimeoutMs: options.drainTimeoutMs ?? this.config.drainTimeoutMs });
      const summary = await toPromise(this.#parts.actor);
      if (summary === null) throw new TroupeError('internal', 'shutdown finished without a summary');
      await this.#close();
      return summary;
    })();
    return this.#summary;
  }

  async #close(): Promise<void> {
    this.#parts.approvals.close();
    this.#parts.measurements.close();
    await closeRuntimeParts({ mcp: this.#mcp, memory: this.#parts.memory, bus: this.bus, artifacts: this.#parts.artifacts, journal: this.#parts.journal });
    this.#parts.tap?.closed();
  }

  #requireOpen(): void {
    requireRunning(this.#parts.actor);
  }
}

/** Starts a runtime with a root agent, ready for `submit`; with `record`, the run is recorded (docs/replay.md). */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  if (options.record === undefined) return Runtime.create(options);
  const recording = startRecording({ ...options, record: options.record });
  return Runtime.create(recording.options, { tap: recording.recorder }).catch((error: unknown) => {
    recording.recorder.closed();
    throw error;
  });
}

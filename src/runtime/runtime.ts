import type { Tracer } from '@opentelemetry/api';
import type { Observable, Subscription } from 'rxjs';
import { z } from 'zod';
import { type Actor, toPromise } from 'xstate';
import { type ShutdownSummary, runtimeMachine } from '../../machines/runtime.machine.js';
import { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError } from '../errors.js';
import { type IdGenerator, randomIds } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../llm/index.js';
import type { ArtifactRef, ArtifactStore, Role, StoredArtifact } from '../org/index.js';
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
import { type AgentView, AgentViews } from './views/agentViews.js';
import { BackgroundRestore, type RestoreState } from './society/backgroundRestore.js';
import { IntakeGate } from './limits/intakeGate.js';
import { closeRuntimeParts, startRuntimeActor } from './runtimeActor.js';
import { type LoadedSkillsOption, runtimeOpening } from './runtimeOpening.js';
import type { RuntimeOptions } from './runtimeOptions.js';
import { startOrganisation } from './organisationStart.js';
import type { MemoryQueryInput, MemoryView } from './views/memoryQuery.js';
import type { GraphQueryInput, GraphView } from './views/graphView.js';
import type { GraphMemory } from '../graph/index.js';
import type { MemorySettings } from './memory/memoryOptions.js';
import { RuntimeMemory } from './memory/runtimeMemory.js';
import type { ImportItem, ImportReport, RememberInput, RememberedFactView } from './memory/programMemory.js';
import { MemoryAccess } from './memoryAccess.js';
import { Society } from './society/society.js';
import { societyEnvironment } from './society/societyEnvironment.js';
import { ownNodes } from './nodes/nodesOwner.js';
import { type TerminateOptions, type UserTerminateOptions, terminationOf, userTerminationOf } from './society/terminateOptions.js';
import { DurableOrder } from './journal/durableOrder.js';
import { HeldUntilDurable } from './limits/heldUntilDurable.js';
import { type OutputHandler, UserEndpoint } from './userEndpoint.js';
import { registerInternals } from './internals.js';
import { UserIntake } from './userIntake.js';
import { SessionHandoffs } from './society/sessionHandoffs.js';
import type { ApprovalEvent } from './approvals/approvalDesk.js';
import { SocietyApprovals } from './nodes/societyApprovals.js';
import { withCheckedHandoffs } from './agent/handoffTools.js';
import { spawnOverrides } from './society/spawnSettings.js';
import type { RunTap } from '../replay/index.js';
import { startRecording } from './runRecording.js';
import { type GaugeSources, type RuntimeGauges, runtimeGauges } from './views/runtimeGauges.js';
import type { Measurement, Measurements } from './measurements.js';
import type { TraceCarrier } from '../traceContext.js';

/** Why a Task is canceled (`rt.cancel`), as its answer says. */
const CancelReasonSchema = z.string().min(1).max(500);

/** A role as a program creates it (`rt.createRole`). */
type RoleInput = { name: string; prompt: string; description?: string; tools?: ToolPolicy; createdBy?: string; handoffs?: readonly string[] };

/**
 * What only troupe itself sets: `betweenRestoreSlices` replaces the background restore's turn of
 * the event loop before each slice (tests); `tap` is a recording or a replay of the run.
 */
interface RuntimeSeams {
  readonly betweenRestoreSlices?: () => Promise<void>;
  readonly tap?: RunTap;
}

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
  /** The society's skills (registry, and which are active for whom). */
  readonly skills: SkillHub;
  /** Why each skill given in `skills` that was refused was (file, field, rule). */
  readonly skillProblems: readonly SkillProblem[];
  /** What its spans are made with (`tracing.tracerProvider`, else the global provider): the A2A endpoint's spans too. */
  readonly tracer: Tracer;
  readonly #society: Society;
  readonly #user: UserEndpoint;
  readonly #userIntake: UserIntake;
  readonly #journal: Journal;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #logger: Logger;
  readonly #actor: Actor<typeof runtimeMachine>;
  /** Where each session's user talks since a handoff, and where handoffs go. */
  readonly #handoffs: SessionHandoffs;
  #summary: Promise<ShutdownSummary> | undefined;
  /** The MCP servers whose tools are in `tools`; closed once the agents have stopped. */
  #mcp: McpServers | undefined;
  readonly #intake: IntakeGate;
  /** Starts a restored organisation's agents in the background, once the organisation is known. */
  readonly #restore: BackgroundRestore;
  /** Every live agent's memory and the compactor beside the turns; closed after the agents stop and before the store. */
  readonly #memory: RuntimeMemory;
  /** What programs read of agents' memories and graphs and write into them. */
  readonly #access: MemoryAccess;
  readonly #artifacts: ArtifactStore;
  /** The calls waiting for a person: this runtime's, and with `nodes` those of its agents on other nodes. */
  readonly #approvals: SocietyApprovals;
  readonly #views: AgentViews;
  /** With `nodes`: the owner's answers to the nodes' agents' org requests (spawn, terminate, create a role). */
  readonly #orgRequests: Subscription | undefined;
  /** What every output holds until the store commits (the user endpoint, each `events()` stream): intake keeps it bounded. */
  readonly #heldUntilDurable: HeldUntilDurable;
  readonly #tap: RunTap | undefined;
  /** What `gauges()` reads. */
  readonly #gauges: GaugeSources;
  readonly #measurements: Measurements;

  /**
   * Starts a runtime with its root agent; `createRuntime` is the public way in.
   *
   * @internal
   */
  static async create(options: RuntimeOptions, seams: RuntimeSeams = {}): Promise<Runtime> {
    const { config, memorySettings, redactor, logger, clock, mcpServers, loadedSkills, journal, measurements } = await runtimeOpening(options);
    const made = { ...options, ...seams, logger, clock, redactor, memorySettings, loadedSkills, measurements };
    const runtime = new Runtime(made, config, journal);
    runtime.#mcp = await McpServers.connect(mcpServers, { registry: runtime.tools, logger, redactor, clock });
    const stored = journal.stored(config.inboxLimit);
    const parts = { society: runtime.#society, user: runtime.#user, logger, tools: runtime.tools, root: options.root };
    await startOrganisation(parts, stored).catch((error: unknown) => runtime.#fail(error));
    seams.tap?.started(runtime.bus, runtime.tools);
    // Intake opens: `spawning` → `running`.
    runtime.#actor.send({ type: 'runtime.started' });
    // The agents of a stored organisation start from here on, a slice at a time, while the runtime is already in use.
    runtime.#restore.start();
    // Terminated agents past the limit (it may have been lowered since) are forgotten in the background.
    runtime.#memory.retention.check();
    return runtime;
  }

  // Private: a runtime is only usable once its root agent exists, which `create` awaits.
  private constructor(
    options: RuntimeOptions &
      RuntimeSeams & {
        logger: Logger;
        clock: Clock;
        redactor: Redactor;
        memorySettings: MemorySettings;
        loadedSkills: LoadedSkillsOption;
        measurements: Measurements;
      },
    config: RuntimeConfig,
    journal: Journal,
  ) {
    const { clock, logger, inspect, redactor, betweenRestoreSlices } = options;
    this.redactor = redactor;
    this.#journal = journal;
    this.config = config;
    // Each Task an agent has taken and not answered will add to its memory, at least its answer.
    const unanswered = (agentId: string): number => this.#society.startRestored(agentId)?.unanswered ?? 0;
    this.#heldUntilDurable = new HeldUntilDurable(config.maxHeldUntilDurable);
    this.#intake = new IntakeGate(
      config.mailboxLimit,
      (agentId, incoming) => this.#heldUntilDurable.refusal() ?? this.#memory.refusal(agentId, incoming, unanswered(agentId)),
    );
    this.#clock = clock;
    this.#tap = options.tap;
    this.#ids = options.ids ?? randomIds;
    this.#logger = logger;
    this.#measurements = options.measurements;
    const environment = societyEnvironment({ ...options, ids: this.#ids, modelCalls: this.#measurements.modelCalls }, config, journal);
    ({ model: this.model, bus: this.bus, tools: this.tools, memory: this.#memory, skills: this.skills, artifacts: this.#artifacts } = environment);
    this.skillProblems = options.loadedSkills.problems;
    this.tracer = environment.deps.tracing.tracer;
    const { nodes } = options;
    this.#handoffs = new SessionHandoffs({ society: () => this.#society, journal, config, logger, filter: options.handoffs?.filter });
    this.#society = new Society({ ...environment.deps, handoffs: this.#handoffs }, nodes ?? {});
    const owner = { bus: this.bus, society: this.#society, clock, ids: this.#ids, logger, desk: environment.approvals };
    ({ orgRequests: this.#orgRequests, approvals: this.#approvals } =
      nodes === undefined
        ? { orgRequests: undefined, approvals: new SocietyApprovals(environment.approvals) }
        : ownNodes({ ...owner, maxPendingApprovals: config.maxPendingApprovals, nodeRequestTimeoutMs: nodes.nodeRequestTimeoutMs }));
    this.#views = new AgentViews(this.#society, journal);
    this.#gauges = { society: this.#society, limiter: environment.limiter, approvals: this.#approvals, memory: this.#memory.hub };
    const known = (id: string): boolean => this.#society.record(id) !== undefined;
    this.#access = new MemoryAccess({ hub: this.#memory.hub, known, maxImportItems: config.maxImportItems, redactor });
    const restore = { sliceTasks: config.restoreSliceTasks, logger, clock, betweenSlices: betweenRestoreSlices };
    this.#restore = new BackgroundRestore(this.#society.restoring, restore);
    const order = new DurableOrder(journal, logger, this.#heldUntilDurable);
    this.#user = new UserEndpoint({ bus: this.bus, logger, inboxLimit: this.config.inboxLimit, inspect, order });
    registerInternals(this, { society: this.#society, user: this.#user });
    const intake = { gate: this.#intake, ids: this.#ids, clock, maxInputChars: config.maxInputChars, requireOpen: () => this.#requireOpen() };
    this.#userIntake = new UserIntake({ society: this.#society, journal, user: this.#user, ...intake });
    journal.connect(this.bus);
    this.bus.faults$.subscribe((fault) =>
      logger.error({ subscriber: fault.subscriber, taskId: fault.task.id, error: String(fault.error) }, 'bus subscriber failed'),
    );
    const parts = { society: this.#society, bus: this.bus, journal, user: this.#user, clock, logger, orgRequests: this.#orgRequests, inspect };
    this.#actor = startRuntimeActor(parts);
  }

  /** A runtime that could not start lets go of what it opened (the bus, the store) and rethrows. */
  async #fail(error: unknown): Promise<never> {
    this.#actor.send({ type: 'runtime.failed', error });
    await this.#close();
    throw error;
  }

  /** `spawning`, `running`, `draining` or `terminated`. */
  get state(): string {
    return this.#actor.getSnapshot().value;
  }

  /** Whether a restart's agents are still being started in the background (the runtime takes work meanwhile). */
  get restoring(): boolean {
    return !this.#restore.state().done;
  }

  /** How far the restore has got: agents to restore, agents restored, Tasks handed back, and whether it is over. */
  restoreState(): RestoreState {
    return this.#restore.state();
  }

  /** Resolves once every restored agent runs (at once without a restore), or a shutdown stopped the restore first. */
  restored(): Promise<RestoreState> {
    return this.#restore.finished;
  }

  // The intake calls are async so that each can await a durable write before it resolves;
  // every broken rule rejects the returned promise (a TroupeError with its code).
  /** `handoffs`: the agents or roles (or `user`) its agents may hand a conversation to, each a `transfer_to_<name>` tool. */
  async createRole(input: RoleInput): Promise<Role> {
    return this.#society.addRole(withCheckedHandoffs({ ...input, createdBy: input.createdBy ?? 'user' }, this.tools));
  }

  /** The roles agents can be spawned with, oldest first. */
  roles(): Role[] {
    return this.#society.roles.list();
  }

  /** Spawns an agent of `role` (name or id), top-level without `parent`; resolves with its id. It inherits its parent's settings but those given. */
  async spawn(input: { role: string; parent?: string } & AgentSettingsInput): Promise<string> {
    this.#requireOpen();
    const parent = input.parent === undefined ? null : parseOrThrow(AgentIdSchema, input.parent, 'parent');
    const settings = spawnOverrides(input);
    return (await this.#society.spawn({ role: input.role, parent, ...(settings === undefined ? {} : { settings }) })).agentId;
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
    const to = sessionId === undefined ? 'root' : (this.#handoffs.agentFor(sessionId) ?? 'root');
    return this.#userIntake.input(to, text, Actions.execute, null, sessionId, options.trace);
  }

  /**
   * Sends the user's message to an agent; resolves with the id of the Task sent. `taskId`
   * continues that Task's tree; `sessionId` names the session (by default `taskId`'s, or a new one).
   */
  async send(agentId: string, text: string, options: { taskId?: string; sessionId?: string } = {}): Promise<string> {
    this.#requireOpen();
    const parentId = options.taskId === undefined ? null : parseOrThrow(TaskIdSchema, options.taskId, 'taskId');
    const sessionId = options.sessionId === undefined ? undefined : parseOrThrow(TaskIdSchema, options.sessionId, 'sessionId');
    return this.#userIntake.input(agentId, text, Actions.message, parentId, sessionId ?? parentId ?? undefined);
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
    return this.#society.cancelTask(id, 'user', reason);
  }

  /**
   * Terminates an agent and its descendants; `by` must be its parent (`user` for top-level agents).
   * By default they drain: new Tasks are refused, the work they have is finished (up to
   * `drainTimeoutMs`), then they are released; `mode: 'abort'` cancels their work at once.
   */
  async terminate(agentId: string, options: TerminateOptions): Promise<void> {
    await this.#society.terminate(terminationOf(agentId, options));
  }

  /**
   * Terminates an agent for the user, from outside the society (`DELETE /api/agents/:id`): a
   * top-level agent other than root, or a top-level agent's child (a child of root whose parent's
   * turn ended without terminating it). One terminated before is no error. Resolves with how it ended.
   */
  async terminateAsUser(agentId: string, options: UserTerminateOptions = {}): Promise<{ mode: TerminationMode }> {
    return this.#society.terminate(userTerminationOf(agentId, options, 'root'));
  }

  /** The agents in memory: the live ones and the most recent terminated ones (`terminatedAgentsInMemory`). */
  agents(): AgentView[] {
    return this.#views.inMemory();
  }

  /** A page of agents, oldest first, optionally only `active` or `terminated` ones; with an org store, terminated ones are read from it. */
  agentPage(query: AgentQuery = {}): AgentPage<AgentView> {
    return this.#views.page(query);
  }

  agent(agentId: string): AgentView | undefined {
    return this.#views.one(agentId);
  }

  /** The message log of the task tree `rootTaskId` (every Task but streamed thinking, oldest first); undefined without an org store. */
  messageLog(rootTaskId: string, page: { offset?: number; limit?: number } = {}): Task[] | undefined {
    return this.#journal.messageLog(rootTaskId, page);
  }

  /** Artifact `id` a tool call stored, content as given (text or bytes); undefined when unknown or evicted; `store_damaged` naming a damaged one. */
  artifact(id: string): StoredArtifact | undefined {
    return this.#artifacts.get(id);
  }

  /** References to the artifacts the tool calls of a session's Tasks stored, oldest first. */
  artifacts(sessionId: string): ArtifactRef[] {
    return this.#artifacts.list(sessionId);
  }

  /** The tool calls waiting for a person's approval (of `agentId` when given), oldest first (docs/approvals.md). */
  approvals(query: { agentId?: string } = {}): Approval[] {
    return this.#approvals.pending(query.agentId);
  }

  /** Approval `id`, waiting or decided, while its call is not over (its result in, or its Task ended); undefined otherwise. */
  approval(id: string): Approval | undefined {
    return this.#approvals.get(id);
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
    return this.#approvals.decide(id, decision);
  }

  /** Every approval asked for and every decision, as they happen (what `troupe run` asks on the terminal from). */
  approvalEvents(): Observable<ApprovalEvent> {
    return this.#approvals.events;
  }

  // What programs read of agents' memories and graphs and write into them; each documented on `MemoryAccess`.

  /** What an agent remembers: counts of its memory's tiers, a page of one, or the L4 facts closest to `search` (docs/memory.md). */
  memory(agentId: string, query: MemoryQueryInput = {}, options: { redactor?: Redactor } = {}): Promise<MemoryView> {
    return this.#access.memory(agentId, query, options.redactor);
  }

  /**
   * Puts a fact into a live agent's long-term memory (L4) without a model turn.
   * @example
   * const fact = await rt.remember('root', { text: 'The user prefers answers in French.', metadata: { source: 'crm' } });
   */
  remember(agentId: string, input: RememberInput): Promise<RememberedFactView> {
    return this.#access.remember(agentId, input);
  }

  /** Removes a fact from a live agent's long-term memory. */
  forget(agentId: string, factId: string): Promise<void> {
    return this.#access.forget(agentId, factId);
  }

  /** Puts many facts and conversation turns into a live agent's long-term memory, all of them or none. */
  importMemory(agentId: string, items: readonly ImportItem[]): Promise<ImportReport> {
    return this.#access.importMemory(agentId, items);
  }

  /** An agent's graph of events and notes (or the society's, `society`): its newest nodes, or a node's neighbourhood. */
  graph(ownerId: string, query: GraphQueryInput = {}, options: { redactor?: Redactor } = {}): Promise<GraphView> {
    return this.#access.graph(ownerId, query, options.redactor);
  }

  /** The graph memory of a live agent (or the society's, `society`), to read and change from a program. */
  graphMemory(ownerId: string): Promise<GraphMemory> {
    return this.#access.graphMemory(ownerId);
  }

  /** Model calls and tokens of the whole society so far. */
  usage(): ModelUsage {
    return this.#society.totalUsage();
  }

  /** What the runtime is doing now, as numbers: agents by state, queues, lanes, model calls, approvals, memory and graph sizes (docs/observability.md). */
  gauges(): RuntimeGauges {
    return runtimeGauges(this.#gauges);
  }

  /** Each model call and each org store commit as it ends, with its duration (and a call's tokens); nothing is timed while nobody subscribes. */
  measurements(): Observable<Measurement> {
    return this.#measurements.events;
  }

  /**
   * The bus's Tasks matching `pattern` (as `bus.on`), in publish order, each answer to the user
   * held until it is durable: what an output shows (the event stream, the CLI) is never an answer
   * a restart would give again.
   */
  events(pattern = '*'): Observable<Task> {
    return this.bus.on(pattern).pipe(DurableOrder.operator(this.#journal, this.#logger, this.#heldUntilDurable));
  }

  /**
   * What agents have sent the user, oldest first: their answers and messages (the last
   * `inboxLimit`; the org store keeps the full log).
   */
  inbox(): readonly Task[] {
    return this.#user.inbox();
  }

  onOutput(handler: OutputHandler): () => void {
    return this.#user.onOutput(handler);
  }

  /** How each MCP server stands: up, being restarted, given up; with its last error and its number of tools. */
  mcpServers(): McpServerStatus[] {
    return this.#mcp?.status() ?? [];
  }

  /** Resolves with the final Task of `taskId` once it reaches the user. */
  waitForAnswer(taskId: string, options: { timeoutMs: number }): Promise<Task> {
    return this.#user.waitForAnswer(taskId, options.timeoutMs, this.#clock);
  }

  /** Stops intake, lets work in flight finish (up to `drainTimeoutMs`), stops every agent and summarises. */
  shutdown(options: { drainTimeoutMs?: number } = {}): Promise<ShutdownSummary> {
    this.#summary ??= (async () => {
      // No more agents are started in the background; those not started keep their work in the store.
      this.#restore.stop();
      this.#tap?.shuttingDown();
      this.#actor.send({ type: 'runtime.shutdown', drainTimeoutMs: options.drainTimeoutMs ?? this.config.drainTimeoutMs });
      const summary = await toPromise(this.#actor);
      if (summary === null) throw new TroupeError('internal', 'shutdown finished without a summary');
      await this.#close();
      return summary;
    })();
    return this.#summary;
  }

  async #close(): Promise<void> {
    this.#approvals.close();
    this.#measurements.close();
    await closeRuntimeParts({ mcp: this.#mcp, memory: this.#memory, bus: this.bus, artifacts: this.#artifacts, journal: this.#journal });
    this.#tap?.closed();
  }

  #requireOpen(): void {
    if (this.state !== 'running') throw new TroupeError('intake_closed', `the runtime is ${this.state} and takes no new work`);
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

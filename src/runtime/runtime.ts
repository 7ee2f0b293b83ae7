import { type Actor, createActor, fromPromise, toPromise } from 'xstate';
import { type ShutdownSummary, runtimeMachine } from '../../machines/runtime.machine.js';
import { EventBus } from '../bus/index.js';
import { type Clock, systemClock } from '../clock.js';
import { TroupeError } from '../errors.js';
import { type IdGenerator, randomIds } from '../ids.js';
import { type Logger, createLogger, logLevelFromEnv } from '../logger.js';
import { type ModelClient, RetryingModel, defaultRetryPolicy, modelFromEnv } from '../llm/index.js';
import { Actions, AgentIdSchema, type Task, TaskIdSchema, createTask, finalStatuses, parseOrThrow } from '../task/index.js';
import { type ToolPolicy, ToolRegistry, metaTools } from '../tools/index.js';
import type { ModelUsage } from './agentCell.js';
import { type RuntimeConfig, RuntimeConfigSchema, UserTextSchema } from './config.js';
import { type Journal, storeJournal } from './journal.js';
import { waitForQuiet } from './quiet.js';
import { type OrgStore, openOrgStore } from '../org/index.js';
import type { Role } from './roleBook.js';
import { type AgentView, type RuntimeOptions, agentView, rootPrompt } from './runtimeOptions.js';
import { Society } from './society.js';
import { type OutputHandler, UserEndpoint } from './userEndpoint.js';

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
  readonly user: UserEndpoint;
  readonly tools: ToolRegistry;
  readonly model: ModelClient;
  readonly config: RuntimeConfig;
  readonly society: Society;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #logger: Logger;
  readonly #actor: Actor<typeof runtimeMachine>;
  #summary: Promise<ShutdownSummary> | undefined;

  readonly #root: { prompt?: string; tools?: ToolPolicy } | undefined;

  /** Starts a runtime with its root agent; `createRuntime` is the public way in. */
  static async create(options: RuntimeOptions): Promise<Runtime> {
    const dataDir = options.dataDir === undefined ? dataDirFromEnv() : options.dataDir;
    const store = dataDir === null ? undefined : await openOrgStore({
      dir: dataDir,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const runtime = new Runtime(options, store);
    if (store !== undefined && runtime.#restore(store)) runtime.#actor.send({ type: 'runtime.started' });
    else await runtime.#spawnRoot();
    return runtime;
  }

  /** Brings back the organisation in `store`; false when it holds none yet (a new data dir). */
  #restore(store: OrgStore): boolean {
    const root = store.agent('root');
    if (root === undefined) return false;
    if (root.status !== 'active') {
      throw new TroupeError('invalid_input', 'the root agent of this data dir was terminated; use a new data dir', { context: { agentId: 'root' } });
    }
    this.society.restore({
      roles: store.roles().map(({ v: _v, ...role }) => role),
      agents: store.agents().map(({ v: _v, ...agent }) => agent),
      terminations: store.terminations().map(({ v: _v, ...termination }) => termination),
    });
    this.user.restoreInbox(store.inbox({ offset: 0, limit: Number.MAX_SAFE_INTEGER }));
    this.#logger.info({ agents: this.society.liveIds().length, roles: this.society.roles.list().length }, 'organisation restored');
    return true;
  }

  // Private: a runtime is only usable once its root agent exists, which `create` awaits.
  private constructor(options: RuntimeOptions, store: OrgStore | undefined) {
    const { model, retry, bus, clock, ids, logger, tools, inspect, root, dataDir: _dataDir, ...config } = options;
    this.#store = store;
    this.#journal = store === undefined ? undefined : storeJournal(store);
    this.#root = root;
    this.config = RuntimeConfigSchema.parse(config);
    this.#textSchema = UserTextSchema.max(this.config.maxInputChars);
    this.#clock = clock ?? systemClock;
    this.#ids = ids ?? randomIds;
    this.#logger = logger ?? createLogger(logLevelFromEnv(process.env['TROUPE_LOG_LEVEL']) ?? 'info');
    const chosen = model ?? modelFromEnv(process.env);
    this.model = retry === false ? chosen : new RetryingModel(chosen, { ...defaultRetryPolicy, ...retry }, { clock: this.#clock, logger: this.#logger });
    this.bus = bus ?? new EventBus({ clock: this.#clock });
    this.tools = new ToolRegistry().register(...metaTools, ...(tools ?? []));
    this.society = new Society({
      bus: this.bus, clock: this.#clock, ids: this.#ids, logger: this.#logger, model: this.model,
      tools: this.tools, config: this.config, inspect, journal: this.#journal,
    });
    this.user = new UserEndpoint({ bus: this.bus, logger: this.#logger, inboxLimit: this.config.inboxLimit, inspect });
    const journal = this.#journal;
    if (journal !== undefined) {
      // Every Task goes to its tree's log, except the streamed thinking fragments (the answer they
      // add up to is logged) and the user's own messages (logged durably before they are sent).
      this.bus.subscribe({ pattern: '*' }, (task) => {
        if (task.action === Actions.thinking || this.#loggedFirst.has(task)) return undefined;
        return journal.task(task);
      }, 'message-log');
      this.user.onOutput((task) => {
        journal.inbox(task).catch((error: unknown) => this.#logger.error({ taskId: task.id, error: String(error) }, 'inbox write failed'));
      });
    }
    this.bus.faults$.subscribe((fault) => {
      this.#logger.error({ subscriber: fault.subscriber, taskId: fault.task.id, error: String(fault.error) }, 'bus subscriber failed');
    });

    const machine = runtimeMachine.provide({
      actors: { drainSociety: fromPromise(({ input }) => this.#drain(input.drainTimeoutMs)) },
      actions: {
        stopIntake: () => this.user.drain(),
        reportSummary: (_, { summary }) => this.#logger.info({ ...summary }, 'runtime shut down'),
        reportFailure: (_, { error }) => this.#logger.error({ error: String(error) }, 'runtime failed'),
      },
    });
    this.#actor = createActor(machine, { id: 'runtime', ...(inspect === undefined ? {} : { inspect }) });
    this.#actor.start();
  }

  /** Creates the root role and agent, then opens intake (`spawning` → `running`). */
  async #spawnRoot(): Promise<void> {
    const root = this.#root;
    try {
      const rootRole = await this.society.addRole({ name: 'root', prompt: root?.prompt ?? rootPrompt, createdBy: 'runtime', ...(root?.tools === undefined ? {} : { tools: root.tools }) });
      await this.society.spawn({ role: rootRole.id, parent: null, id: 'root' });
    } catch (error) {
      this.#actor.send({ type: 'runtime.failed', error });
      await this.bus.close();
      throw error;
    }
    this.#actor.send({ type: 'runtime.started' });
  }

  /** `spawning`, `running`, `draining` or `terminated`. */
  get state(): string {
    return this.#actor.getSnapshot().value;
  }

  // The intake calls are async so that each can await a durable write before it resolves;
  // every broken rule rejects the returned promise (a TroupeError with its code).
  async createRole(input: { name: string; prompt: string; tools?: ToolPolicy; createdBy?: string }): Promise<Role> {
    return this.society.addRole({ ...input, createdBy: input.createdBy ?? 'user' });
  }

  /** Spawns an agent of `role` (name or id); top-level when `parent` is absent. Resolves with its id. */
  async spawn(input: { role: string; parent?: string }): Promise<string> {
    this.#requireOpen();
    const parent = input.parent === undefined ? null : parseOrThrow(AgentIdSchema, input.parent, 'parent');
    return (await this.society.spawn({ role: input.role, parent })).agentId;
  }

  /** Gives the root agent a requirement; resolves with the id of the Task sent (the answer comes back with it). */
  async submit(text: string, options: { sessionId?: string } = {}): Promise<string> {
    return this.#input('root', text, Actions.execute, null, options.sessionId);
  }

  /** Sends the user's message to an agent; resolves with the id of the Task sent. */
  async send(agentId: string, text: string, options: { taskId?: string } = {}): Promise<string> {
    this.#requireOpen();
    const parentId = options.taskId === undefined ? null : parseOrThrow(TaskIdSchema, options.taskId, 'taskId');
    return this.#input(agentId, text, Actions.message, parentId, parentId ?? undefined);
  }

  /** Terminates an agent and its descendants; `by` must be its parent (`user` for top-level agents). */
  terminate(agentId: string, options: { by: string; reason?: string }): Promise<void> {
    return this.society.terminate({ agentId, by: options.by, reason: options.reason ?? `terminated by ${options.by}` });
  }

  agents(): AgentView[] {
    return this.society.records().map((record) => agentView(this.society, record));
  }

  agent(agentId: string): AgentView | undefined {
    const record = this.society.record(agentId);
    return record === undefined ? undefined : agentView(this.society, record);
  }

  /**
   * The message log of the task tree `rootTaskId` (every Task of it but streamed thinking, oldest
   * first) from the org store; undefined when the organisation is kept in memory only.
   */
  messageLog(rootTaskId: string, page: { offset?: number; limit?: number } = {}): Task[] | undefined {
    return this.#store?.messages(rootTaskId, page);
  }

  /** Model calls and tokens of the whole society so far. */
  usage(): ModelUsage {
    const total: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
    for (const record of this.society.records()) {
      const usage = this.society.usageOf(record.id);
      total.calls += usage?.calls ?? 0;
      total.promptTokens += usage?.promptTokens ?? 0;
      total.completionTokens += usage?.completionTokens ?? 0;
    }
    return total;
  }

  onOutput(handler: OutputHandler): () => void {
    return this.user.onOutput(handler);
  }

  /** Resolves with the final Task of `taskId` once it reaches the user. */
  waitForAnswer(taskId: string, options: { timeoutMs: number }): Promise<Task> {
    const isAnswer = (task: Task): boolean => task.id === taskId && finalStatuses.has(task.status);
    const known = this.user.answerTo(taskId);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => {
        stop();
        reject(new TroupeError('request_timeout', `no answer to task ${taskId} within ${options.timeoutMs} ms`, { context: { taskId } }));
      }, options.timeoutMs);
      const stop = this.onOutput((task) => {
        if (!isAnswer(task)) return;
        this.#clock.clearTimeout(timer);
        stop();
        resolve(task);
      });
    });
  }

  /** Stops intake, lets work in flight finish (up to `drainTimeoutMs`), stops every agent and summarises. */
  shutdown(options: { drainTimeoutMs?: number } = {}): Promise<ShutdownSummary> {
    this.#summary ??= (async () => {
      this.#actor.send({ type: 'runtime.shutdown', drainTimeoutMs: options.drainTimeoutMs ?? this.config.drainTimeoutMs });
      await toPromise(this.#actor);
      const summary = this.#lastSummary;
      if (summary === undefined) throw new TroupeError('internal', 'shutdown finished without a summary');
      await this.bus.close();
      await this.#store?.close();
      return summary;
    })();
    return this.#summary;
  }

  #lastSummary: ShutdownSummary | undefined;
  readonly #store: OrgStore | undefined;
  readonly #journal: Journal | undefined;
  readonly #loggedFirst = new WeakSet<Task>();
  // Built once: zod schemas are cheap to run and costly to build.
  readonly #textSchema: ReturnType<typeof UserTextSchema.max>;

  async #drain(drainTimeoutMs: number): Promise<ShutdownSummary> {
    const started = this.#clock.now();
    const quiet = (): boolean => this.society.busyCount === 0 && this.bus.pendingRequests === 0;
    const drained = await waitForQuiet(quiet, [this.society.activity$, this.bus.on('*')], drainTimeoutMs, this.#clock);
    const live = this.society.liveIds();
    const pendingTasks = live.reduce((sum, id) => {
      const context = this.society.cell(id)?.actor.getSnapshot().context;
      return context === undefined ? sum : sum + context.mailbox.length + (context.current === null ? 0 : 1);
    }, 0);
    const liveSet = new Set(live);
    const topLevel = live.filter((id) => !liveSet.has(this.society.parentOf(id) ?? ''));
    await Promise.all(topLevel.map((id) => this.society.terminateSubtree(id, 'runtime', 'shutdown', { record: false })));
    this.user.close();
    this.#lastSummary = {
      agents: this.society.records().length,
      terminatedAgents: live.length,
      pendingTasks,
      drained,
      elapsedMs: this.#clock.now() - started,
    };
    return this.#lastSummary;
  }

  async #input(to: string, text: string, action: string, parentId: string | null, sessionId: string | undefined): Promise<string> {
    this.#requireOpen();
    const target = parseOrThrow(AgentIdSchema, to, 'agentId');
    const body = parseOrThrow(this.#textSchema, text, 'text');
    if (target === 'user') throw new TroupeError('user_to_user', 'a user message cannot be addressed to "user"');
    const record = this.society.record(target);
    if (record === undefined) throw new TroupeError('unknown_agent', `no agent "${target}"`, { context: { agentId: target } });
    // A draining agent has already let go of its inbox: a Task sent now would never be answered.
    if (!this.society.isActive(target)) throw new TroupeError('agent_terminated', `agent "${target}" is terminated`, { context: { agentId: target } });
    const task = createTask({ from: 'user', to: target, action, parameters: { text: body }, parentId, sessionId }, { ids: this.#ids, clock: this.#clock });
    if (this.#journal !== undefined) {
      // Durable before it is sent and before the caller hears its id: in the task's log, and
      // waiting for its agent, so a crash right after the acknowledgement still hands it back.
      await Promise.all([this.#journal.task(task), this.#journal.waiting(target, task)]);
      this.#loggedFirst.add(task);
      this.#requireOpen();
    }
    this.user.input(task);
    return task.id;
  }

  #requireOpen(): void {
    if (this.state !== 'running') throw new TroupeError('intake_closed', `the runtime is ${this.state} and takes no new work`);
  }
}

/** `TROUPE_DATA_DIR` when set (and not blank), else null: memory only. */
function dataDirFromEnv(): string | null {
  const dir = process.env['TROUPE_DATA_DIR']?.trim();
  return dir === undefined || dir === '' ? null : dir;
}

/** Starts a runtime with a root agent, ready for `submit`. */
export function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return Runtime.create(options);
}

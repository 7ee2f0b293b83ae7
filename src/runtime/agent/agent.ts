import type { Subscription } from 'rxjs';
import { type Actor, type InspectionEvent, createActor, toPromise } from 'xstate';
import type { agentMachine } from '../../../machines/agent.machine.js';
import { queuedStarts } from '../../../machines/agentLanes.js';
import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import type { ModelClient } from '../../llm/index.js';
import type { AgentRecord, ArtifactStore, Role } from '../../org/index.js';
import { Actions, type Task, type TaskRef, type ToolDefinition, type ToolPolicy, asksForWork, intersectPolicies, noticeTask } from '../../task/index.js';
import type { SkillHub } from '../../skills/index.js';
import type { RemoteRole, SocietyPort, ToolRegistry } from '../../tools/index.js';
import type { ActivityTracker } from './activity.js';
import type { RuntimeConfig } from '../config/config.js';
import type { Journal } from '../journal/journal.js';
import { type AgentState, agentStateOf, isAtRest, isIdle, runsTurns, takesWork } from './agentState.js';
import { type SessionContexts, type TurnContext, sessionContexts } from './context/sessionContexts.js';
import { restoredWork } from './restoredWork.js';
import { systemPrompt } from './context/systemPrompt.js';
import type { Redactor } from '../../task/index.js';
import type { MemoryHub } from '../memory/memoryHub.js';
import type { MemorySettings } from '../memory/memoryOptions.js';
import { parentContext } from './context/parentContext.js';
import { type ResolvedSettings, resolveSettings } from './agentSettings.js';
import type { HandoffDesk } from './handoffDesk.js';
import type { InterceptorChain } from './interceptors/interceptorChain.js';
import type { ApprovalDesk } from '../approvals/approvalDesk.js';
import type { RunTape } from '../../replay/index.js';
import type { Tracing } from './tracing.js';

/** What every agent of a runtime shares. */
export interface AgentEnvironment {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly config: RuntimeConfig;
  readonly journal: Journal;
  /** What the agent's meta-tools act on. */
  readonly society: SocietyPort;
  /** Keeps the society's busy count from every agent's snapshots. */
  readonly activity: ActivityTracker;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Takes configured secrets out of what the agent lets out of the process (its failures' messages). */
  readonly redactor: Redactor;
  /** Every live agent's memory, fed from the bus: what each turn's context is built from. */
  readonly memory: MemoryHub;
  readonly memorySettings: MemorySettings;
  /** The society's skills, and which each agent has active in each session. */
  readonly skills: SkillHub;
  /** Where the artifacts of tool results are stored; the model sees them by reference. */
  readonly artifacts: ArtifactStore;
  /** Models an agent's settings may name (`createRuntime({ models })`), behind the same limiter and retries as `model`. */
  readonly models?: ReadonlyMap<string, ModelClient>;
  /** Where handoffs go; absent, they are refused (an agent hosted on a node). */
  readonly handoffs?: HandoffDesk;
  /** The runtime's interceptors (`createRuntime({ interceptors })`); each agent runs those of its role. */
  readonly interceptors: InterceptorChain;
  /** Where tool calls that need a person's approval wait for it. */
  readonly approvals: ApprovalDesk;
  /** How its turns are traced (OpenTelemetry spans; no-ops unless an SDK or a provider is given). */
  readonly tracing: Tracing;
  /** Agents outside the society `delegate_task` gives work to by role (`createRuntime({ remoteRoles })`). */
  readonly remoteRoles?: ReadonlyMap<string, RemoteRole>;
  /** Where a recorded run notes its other non-deterministic inputs (a person's decisions) and its replay takes them back (see RunTape). */
  readonly tape?: RunTape;
}

/** The agent machine, with the runtime's implementations provided (same type as the bare one). */
export type AgentMachine = typeof agentMachine;

/** Model calls made and tokens used, as reported by the provider. */
export interface ModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * One live agent: its actor (with a lane per session it is serving), its context in each session,
 * its model usage, its mailbox on the bus (kept in the journal until answered) and how it started
 * (fresh, or restored with the work it had accepted). Everything about a live agent is here; the
 * organisation's record of it is data.
 */
export class Agent {
  readonly id: string;
  readonly #contexts: SessionContexts;
  readonly usage: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  readonly actor: Actor<AgentMachine>;
  /** Its model, limits, tool policy, handoff tools and skills, as its settings, role and runtime make them. */
  readonly settings: ResolvedSettings;
  /** The runtime's interceptors that apply to its role, run around each of its turns. */
  readonly interceptors: InterceptorChain;
  readonly #waiting: readonly Task[];
  #inbox: Subscription | undefined;
  #released = false;

  /** Builds the agent (its contexts, its unfinished work when restored, and its actor) without starting it. */
  constructor(
    readonly env: AgentEnvironment,
    machine: AgentMachine,
    readonly record: AgentRecord,
    readonly role: Role,
    origin: 'new' | 'restored',
  ) {
    this.id = record.id;
    const { config } = env;
    this.settings = resolveSettings(env, record, role);
    this.interceptors = env.interceptors.forRole(role.name);
    const { memory, memorySettings } = env;
    const parentId = record.parentAgentId;
    this.#contexts = sessionContexts({
      agentId: record.id,
      rolePrompt: systemPrompt(record, role),
      journal: env.journal,
      limit: config.sessionsInMemoryPerAgent,
      inUse: (sessionId) => this.#inLane(sessionId),
      memory: () => memory.opened(record.id),
      inherited: (sessionId) => (parentId === null ? null : parentContext(memory.memoryOf(parentId), sessionId, memorySettings.budget)),
      budget: memorySettings.budget,
      skills: (sessionId) => env.skills.prompt(record.id, sessionId, memorySettings.budget.tokens),
      retrieve: memorySettings.retrieve,
      minRelevance: memorySettings.minRelevance,
    });
    const start = restoredWork(env, this.#contexts, record, origin);
    this.#waiting = start.waiting;
    this.actor = createActor(machine, {
      id: this.id,
      input: {
        agentId: this.id,
        roleId: role.id,
        parentId: record.parentAgentId,
        maxSteps: this.settings.limits.maxSteps,
        mailboxLimit: config.mailboxLimit,
        maxLanes: config.maxLanesPerAgent,
        resume: start.resume,
      },
      ...(env.inspect === undefined ? {} : { inspect: env.inspect }),
    });
  }

  /**
   * Starts the actor and opens the mailbox: Tasks addressed to the agent that ask for work become
   * `task.received`. Tasks it had accepted before a restart come first, in order.
   *
   * @internal
   */
  start(): void {
    const { activity, bus, logger } = this.env;
    const id = this.id;
    this.actor.subscribe({
      // Runs on every event of every agent: `isIdle` reads the state value directly rather than through `matches`.
      next: (snapshot) => {
        activity.track(id, snapshot.status === 'active' && !isIdle(snapshot));
        activity.rest(id, isAtRest(snapshot));
      },
      error: (error) => {
        activity.track(id, false);
        activity.rest(id, false);
        logger.error({ agentId: id, error: String(error) }, 'agent actor stopped on an error');
      },
    });
    // The skills it may use: its role's and what it inherited (both policies), within the skills its settings name.
    const { skills } = this.settings;
    const policy = intersectPolicies(this.settings.tools, skills === undefined ? undefined : { skills: { allow: [...skills] } });
    this.env.skills.enter(id, policy, () => this.env.journal.storedActiveSkills(id));
    // Open before anything reaches the agent: what its memory is fed meanwhile waits for the opening.
    void this.env.memory.open(id);
    this.actor.start();
    this.#inbox = bus.subscribe({ to: id }, (task) => this.receive(task), `agent:${id}`);
    // Accepted before the restart: never refused after it, however many there are.
    for (const task of this.#waiting) this.actor.send({ type: 'task.received', task, accepted: true });
  }

  /**
   * A Task addressed to the agent: new work is kept waiting and queued; status updates and
   * notices are observations, and start no turn. What the mailbox subscription calls, and what a
   * restored agent started by its first Task is given that Task with.
   *
   * @internal
   */
  receive(task: Task): void {
    // The giver of a Task takes it back (its delegating turn was stopped): only the giver may.
    if (task.action === Actions.cancel && task.parentId !== null) {
      const reason = task.parameters['reason'];
      this.cancel(task.parentId, task.from, typeof reason === 'string' ? reason : 'no reason given', task.from);
      return;
    }
    if (!asksForWork(task)) return;
    this.env.journal.waiting(this.id, task);
    // The user's Tasks were checked against the mailbox limit at intake (and acknowledged).
    this.actor.send({ type: 'task.received', task, accepted: task.from === 'user' });
  }

  /**
   * Gives up the Task `taskId` if the agent holds it (in a lane's turn, which is stopped, or
   * queued) and, when `from` is given, it came from `from`: it is answered `canceled` saying `by`
   * and why. Returns whether it held it.
   */
  cancel(taskId: string, by: string, reason: string, from?: string): boolean {
    const { context } = this.actor.getSnapshot();
    const held = context.lanes.find((lane) => lane.task.id === taskId)?.task ?? context.mailbox.find((task) => task.id === taskId);
    if (held === undefined || (from !== undefined && held.from !== from)) return false;
    this.actor.send({ type: 'task.cancel', taskId, by, reason });
    return true;
  }

  /** How many Tasks it was handed back when restored (0 for a new agent). */
  get handedBack(): number {
    return this.#waiting.length;
  }

  /** Where notices about this agent go: its parent, or `runtime` for a top-level agent. */
  get supervisor(): string {
    return this.record.parentAgentId ?? 'runtime';
  }

  /** Live, not draining and not stopping, so it may take new work and children. */
  get active(): boolean {
    return takesWork(this.actor.getSnapshot());
  }

  /** Live and not stopping, so it still runs turns (a draining agent does). */
  get running(): boolean {
    return runsTurns(this.actor.getSnapshot());
  }

  get state(): AgentState {
    return agentStateOf(this.actor.getSnapshot());
  }

  /** Tasks waiting in the mailbox. */
  get queued(): number {
    return this.actor.getSnapshot().context.mailbox.length;
  }

  /** Sessions with a turn in progress (lanes). */
  get lanes(): number {
    return this.actor.getSnapshot().context.lanes.length;
  }

  /**
   * Tasks waiting for a lane, as intake counts them against `mailboxLimit`: the mailbox, less
   * those that start lanes as soon as the agent runs while it is still spawning (so a restored
   * agent started by a new Task counts as it would once restored).
   */
  get waitingForTurn(): number {
    const snapshot = this.actor.getSnapshot();
    const { context } = snapshot;
    if (!snapshot.matches('spawning')) return context.mailbox.length;
    return queuedStarts(context)?.mailbox.length ?? context.mailbox.length;
  }

  /** Tasks accepted and not yet answered: the mailbox and those in a lane's turn. */
  get unanswered(): number {
    const { context } = this.actor.getSnapshot();
    return context.mailbox.length + context.lanes.length;
  }

  /**
   * The agent's context in `sessionId`: what its turns in that session send the model and append
   * their steps to. Made on first use; no session's context holds another session's text.
   */
  context(sessionId: string): TurnContext {
    return this.#contexts.context(sessionId);
  }

  /** The tools its model sees: the shared registry's its policy allows, then its `transfer_to_<name>` handoffs. */
  toolDefinitions(sessionId: string): readonly ToolDefinition[] {
    const shared = this.env.tools.definitions(this.toolPolicy(sessionId));
    const { handoffs } = this.settings;
    return handoffs.length === 0 ? shared : [...shared, ...handoffs.map((handoff) => handoff.definition)];
  }

  /** What its model may call in `sessionId`: its tool policy, less the tools of skills not active there. */
  toolPolicy(sessionId: string): ToolPolicy | undefined {
    const hidden = this.env.skills.hiddenTools(this.id, sessionId);
    return hidden.length === 0 ? this.settings.tools : intersectPolicies(this.settings.tools, { deny: hidden });
  }

  /** Sessions whose context is in memory (at most `sessionsInMemoryPerAgent`, and those in a lane). */
  get sessionsInMemory(): number {
    return this.#contexts.inMemory;
  }

  #inLane(sessionId: string): boolean {
    return this.actor.getSnapshot().context.lanes.some((lane) => lane.sessionId === sessionId);
  }

  /**
   * Closes the agent's intake: new Tasks are refused, the turn in progress and the queued Tasks
   * still run. `terminate` ends it once drained.
   *
   * @internal
   */
  drain(): void {
    if (this.actor.getSnapshot().status === 'active') this.actor.send({ type: 'agent.drain' });
  }

  /**
   * Tells the agent to stop: it takes no new work, answers what it had queued `canceled` and
   * terminates. `resumable`: stopped for a shutdown of a persistent runtime, its work is kept
   * for the restart instead (nothing cancelled, nothing announced).
   *
   * @internal
   */
  terminate(by: string, reason: string, resumable: boolean, about: TaskRef | null = null): void {
    if (this.actor.getSnapshot().status === 'active') this.actor.send({ type: 'agent.terminate', by, reason, resumable, about });
  }

  /**
   * Resolves once the actor has stopped, however it stopped.
   *
   * @internal
   */
  stopped(): Promise<void> {
    return toPromise(this.actor).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Lets go of the mailbox and of its contexts; unless its work resumes after a restart, they are
   * forgotten in the store too.
   *
   * @internal
   */
  release(resumable: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#inbox?.unsubscribe();
    this.#contexts.release(resumable);
    this.env.skills.leave(this.id);
    this.env.memory.close(this.id);
  }

  /**
   * Publishes a notice about this agent (spawned, warning, error, terminated) to its supervisor.
   *
   * @internal
   */
  notify(action: string, parameters: Record<string, string | number>, about: TaskRef | null): void {
    this.env.bus.publish(noticeTask({ from: this.id, to: this.supervisor, action, parameters, about }, this.env));
  }

  /**
   * Before each model call of a turn on `task`: a turn whose own steps leave no room under the
   * context budget is compacted (see TurnContext.fitToBudget), and the log says so: no request is
   * sent over the budget. Returns whether it was.
   */
  fitTurn(task: Task): boolean {
    const fitted = this.context(task.sessionId).fitToBudget();
    if (fitted === null) return false;
    const { removed, kept, cut } = fitted;
    this.env.logger.info({ agentId: this.id, taskId: task.id, removed, kept, cut }, "a turn's steps were compacted to fit the context budget");
    return true;
  }

  /**
   * Before each model call of a turn on `task`: when the turn's own steps are more than
   * `maxConversationMessages`, or take more than the context budget's `warnAtTurnShare`, the
   * warning the model is to read last in this call's request (null: none). It is not one of the
   * turn's steps: every call while over gets the current one, and a long turn does not pile them
   * up. The supervisor gets an `agent.warning` notice, and the log a line, when the turn goes over,
   * not on every call after: a notice a step would fill its memory with the same news.
   */
  warnIfLong(task: Task): string | null {
    const max = this.env.config.maxConversationMessages;
    const context = this.context(task.sessionId);
    const warning = context.warning(max);
    if (warning === null) return null;
    if (warning.first) {
      const messages = context.length;
      this.env.logger.warn({ agentId: this.id, sessionId: task.sessionId, messages, max }, 'conversation over its maximum length');
      this.notify(Actions.warning, { messages, max }, task);
    }
    return warning.text;
  }
}

import type { DurableMailboxes, EventBus } from '../../../bus/index.js';
import type { Clock } from '../../../clock.js';
import { TroupeError, describeError, errorCodeOf } from '../../../errors.js';
import type { IdGenerator } from '../../../ids.js';
import type { Logger } from '../../../logger.js';
import type { AgentRecord, Role } from '../../../org/index.js';
import { type Task, type TaskRef, createTask, refTo, replyTo } from '../../../task/index.js';
import type { ActivityTracker } from '../../agent/activity.js';
import type { ModelUsage } from '../../agent/index.js';
import { type HostAgent, PlacementActions, type StopHosted, StoppedReplySchema } from './nodeProtocol.js';

/** The owner's id on the bus: what it asks nodes from. */
const owner = 'owner';

/** What a remote agent needs of the owner's runtime. */
export interface RemoteAgentDeps {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly activity: ActivityTracker;
  /** How long a node has to answer a placement or a stop. */
  readonly requestTimeoutMs: number;
  /** The most Tasks in progress the owner keeps track of per remote agent; past it the oldest is forgotten, with a log line. */
  readonly maxTracked: number;
  /** `fail`: while its node is unreachable, Tasks to the agent and those it has in progress fail at once with `agent_unreachable`; `wait`: they wait. */
  readonly whileUnreachable: 'fail' | 'wait';
  /** A Task it was given is answered: the owner's store stops keeping it as waiting (the user's are kept there on intake). */
  readonly answered: (agentId: string, taskId: string) => void;
  /** Where its Tasks wait for it, when the society keeps durable mailboxes: opened before it is placed, removed when it is gone. */
  readonly mailboxes: DurableMailboxes | undefined;
}

type Phase = 'placing' | 'running' | 'draining' | 'stopping' | 'gone';

/**
 * An agent of the owner's organisation whose actor runs on another node. The owner keeps its
 * record and its place in the tree, watches the bus for the work it is given and answers, so a
 * drain waits for that work and a lost node fails it at once (`agent_unreachable`) instead of
 * leaving its callers to their timeouts.
 */
export class RemoteAgent {
  readonly id: string;
  /** Its model calls are counted on its node. */
  readonly usage: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  #phase: Phase = 'placing';
  #reachable = true;
  /** Tasks it was given and has not answered yet, oldest first. */
  readonly #inProgress = new Map<string, Task>();
  readonly #gone: Promise<void>;
  #markGone: () => void = () => undefined;
  /** Nodes it was moved away from while they were unreachable: each may still run a stale copy, stopped there once heard again. */
  readonly #leftOn = new Set<string>();
  /** Stops of such copies under way, by node: a move back onto that node waits for its stop. */
  readonly #dropping = new Map<string, Promise<void>>();

  constructor(
    readonly record: AgentRecord,
    readonly role: Role,
    /** The node hosting it (another, once moved). */
    public node: string,
    private readonly deps: RemoteAgentDeps,
  ) {
    this.id = record.id;
    this.#gone = new Promise((resolve) => {
      this.#markGone = resolve;
    });
  }

  /**
   * Asks the node to start the agent (opening its durable mailbox first, if the society keeps
   * them); rejects with the node's refusal, or `agent_unreachable` when it does not answer in time.
   */
  async place(about: TaskRef | null): Promise<void> {
    const { mailboxes } = this.deps;
    await mailboxes?.open(this.id);
    // Only what the notice needs: the Task itself may be any size, and the node checks the shape strictly.
    const notice = refTo(about);
    await this.#ask(PlacementActions.host, this.#hosting(notice, mailboxes === undefined ? {} : { durable: true }), 'placed');
    if (this.#phase === 'placing') this.#phase = 'running';
  }

  /**
   * Places the agent again, on `node`, after its node was lost or went silent: its durable
   * mailbox kept its Tasks, which the new node takes over (work its old node had not answered
   * included, once JetStream's wait for that node runs out). Rejects as `place` does; the agent
   * then stays unreachable until another node with its role is heard.
   */
  async moveTo(node: string): Promise<void> {
    const from = this.node;
    if (!this.#reachable && from !== node) this.#leftOn.add(from);
    this.node = node;
    this.#reachable = false;
    // Back onto a node that may still run a stale copy: that copy stops first, or the node would refuse a second.
    this.heardFrom(node);
    await this.#dropping.get(node);
    await this.#ask(PlacementActions.host, this.#hosting(null, { durable: true, moved: true }), 'placed');
    this.#reachable = true;
    this.#trackActivity();
  }

  /** Whether it can move (the society keeps durable mailboxes) and is not being stopped. */
  get movable(): boolean {
    return this.deps.mailboxes !== undefined && (this.#phase === 'running' || this.#phase === 'draining');
  }

  /** A node heard again: if it holds a copy of this agent left behind by a move, that copy stops there, quietly (its work stays in the mailbox). */
  heardFrom(node: string): void {
    if (!this.#leftOn.delete(node)) return;
    const stop: StopHosted = { agentId: this.id, by: owner, reason: `moved to node ${this.node}`, resumable: true };
    const dropped = this.#askNode(node, PlacementActions.stop, stop, 'stopped').then(
      () => undefined,
      (error: unknown) => this.deps.logger.warn({ agentId: this.id, node, error: describeError(error) }, 'a moved agent’s old copy was not confirmed stopped'),
    );
    this.#dropping.set(node, dropped);
    void dropped.finally(() => {
      if (this.#dropping.get(node) === dropped) this.#dropping.delete(node);
    });
  }

  /** Taking new work: placed, not draining or stopping, its node reachable (or its work waits in a durable mailbox). */
  get active(): boolean {
    return this.#phase === 'running' && (this.#reachable || this.deps.mailboxes !== undefined);
  }

  /** Still working (a draining agent is). */
  get running(): boolean {
    return (this.#phase === 'running' || this.#phase === 'draining') && this.#reachable;
  }

  /** Placed (or being placed) and not claimed by a termination yet, reachable or not: a termination of its subtree stops and records it. */
  get unclaimed(): boolean {
    return this.#phase === 'running' || this.#phase === 'placing';
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** `remote` while its node hosts it, `unreachable` while its node is silent, `draining`, `terminated` once stopped. */
  get state(): 'remote' | 'unreachable' | 'draining' | 'terminated' {
    if (this.#phase === 'gone') return 'terminated';
    if (!this.#reachable) return 'unreachable';
    return this.#phase === 'draining' ? 'draining' : 'remote';
  }

  /** Tasks given to it that it has not answered. */
  get unanswered(): number {
    return this.#inProgress.size;
  }

  /** A final Task from it on the bus: if it answers work it was given, that work is done. */
  answered(task: Task): void {
    if (!this.#inProgress.delete(task.id)) return;
    this.deps.answered(this.id, task.id);
    this.#trackActivity();
  }

  /** Closes its intake here; its node finishes the work it has, which the owner waits for by watching the answers. */
  drain(): void {
    if (this.#phase === 'running') this.#phase = 'draining';
  }

  /**
   * Tells its node to stop it (the agent answers its work `canceled` there); `stopped()` resolves
   * once the node confirms, cannot be reached, or does not answer within the request timeout.
   */
  terminate(by: string, reason: string, resumable: boolean, about: TaskRef | null = null): void {
    if (this.#phase === 'stopping' || this.#phase === 'gone') return;
    this.#phase = 'stopping';
    if (!this.#reachable) {
      this.lost(`its node ${this.node} is unreachable`);
      return;
    }
    const stop: StopHosted = { agentId: this.id, by, reason, resumable, about };
    void this.#ask(PlacementActions.stop, stop, 'stopped')
      .then((reply) => this.#takeUsage(reply))
      .catch((error: unknown) =>
        this.deps.logger.warn({ agentId: this.id, node: this.node, error: describeError(error) }, 'remote agent not confirmed stopped'),
      )
      .finally(() => this.lost(`stopped: ${reason}`));
  }

  stopped(): Promise<void> {
    return this.#gone;
  }

  /** Its node is silent: under `fail`, its work in progress fails now. */
  unreachable(): void {
    this.#reachable = false;
    if (this.deps.whileUnreachable === 'fail') this.#failAll(`its node ${this.node} is unreachable`);
  }

  /** Its node is heard from again, under the same incarnation: the agent is still there. */
  reachableAgain(): void {
    this.#reachable = true;
  }

  /** The agent is gone with its node (restarted, left, or stopped): its work in progress fails, and its durable mailbox goes. */
  lost(why: string): void {
    this.#failAll(why);
    this.#phase = 'gone';
    this.#markGone();
    void this.deps.mailboxes
      ?.remove(this.id)
      .catch((error: unknown) => this.deps.logger.warn({ agentId: this.id, error: describeError(error) }, 'could not remove a durable mailbox'));
  }

  /** Work for it on the bus (a new `execute` or message): tracked until it answers, or failed at once while its node is unreachable under `fail`. */
  given(task: Task): void {
    if (!this.#reachable && this.deps.whileUnreachable === 'fail') {
      this.#fail(task, `its node ${this.node} is unreachable`);
      return;
    }
    this.#inProgress.set(task.id, task);
    if (this.#inProgress.size > this.deps.maxTracked) {
      const [oldest] = this.#inProgress.keys();
      if (oldest !== undefined) this.#inProgress.delete(oldest);
      this.deps.logger.warn(
        { agentId: this.id, taskId: oldest, maxTracked: this.deps.maxTracked },
        'remote agent: stopped tracking its oldest Task in progress',
      );
    }
    this.#trackActivity();
  }

  #failAll(why: string): void {
    const tasks = [...this.#inProgress.values()];
    this.#inProgress.clear();
    this.#trackActivity();
    for (const task of tasks) {
      this.#fail(task, why);
      this.deps.answered(this.id, task.id);
    }
  }

  /** Answers `task` failed on the agent's behalf: its caller learns now, and the owner's log records it. */
  #fail(task: Task, why: string): void {
    const message = `agent "${this.id}" is unreachable: ${why}`;
    this.deps.logger.warn({ agentId: this.id, node: this.node, taskId: task.id }, 'failed a Task of a remote agent: ' + why);
    this.deps.bus.publish(replyTo(task, { status: 'failed', error: { code: 'agent_unreachable', message } }, this.deps.clock));
  }

  #trackActivity(): void {
    this.deps.activity.track(this.id, this.#inProgress.size > 0);
  }

  /** The model usage its node reports as it stops it (each field checked: a node's word is not trusted blindly). */
  #takeUsage(reply: Task): void {
    const parsed = StoppedReplySchema.safeParse(reply.result);
    if (parsed.success && parsed.data !== null) Object.assign(this.usage, parsed.data.usage);
  }

  /** What a node is asked to host: the agent's record and role, and how. */
  #hosting(about: TaskRef | null, how: Pick<HostAgent, 'durable' | 'moved'>): HostAgent {
    const { record, role } = this;
    return {
      agent: { id: record.id, roleId: record.roleId, parentAgentId: record.parentAgentId, createdAt: record.createdAt },
      role: { ...role },
      about,
      ...how,
    };
  }

  #ask(action: string, parameters: HostAgent | StopHosted, done: string): Promise<Task> {
    return this.#askNode(this.node, action, parameters, done);
  }

  async #askNode(node: string, action: string, parameters: HostAgent | StopHosted, done: string): Promise<Task> {
    const { bus, clock, ids, requestTimeoutMs } = this.deps;
    const request = createTask({ from: owner, to: node, action, parameters: { ...parameters } }, { ids, clock });
    let reply: Task;
    try {
      reply = await bus.request(request, { timeoutMs: requestTimeoutMs });
    } catch (error) {
      const code = errorCodeOf(error);
      if (code !== 'request_timeout' && code !== 'transport_unavailable') throw error;
      throw new TroupeError('agent_unreachable', `node ${node} did not confirm agent "${this.id}" ${done} within ${requestTimeoutMs} ms`, {
        context: { agentId: this.id, node },
        cause: error,
      });
    }
    if (reply.status !== 'completed') {
      const code = reply.error?.code ?? 'internal';
      throw new TroupeError(code, `node ${node} refused: ${reply.error?.message ?? reply.status}`, { context: { agentId: this.id, node } });
    }
    return reply;
  }
}

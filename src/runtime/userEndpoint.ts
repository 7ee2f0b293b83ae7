import type { Subscription } from 'rxjs';
import { type Actor, type InspectionEvent, createActor } from 'xstate';
import { type UserEndpointEvent, userEndpointMachine } from '../../machines/userEndpoint.machine.js';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type Task, finalStatuses } from '../task/index.js';
import type { DurableOrder } from './journal/durableOrder.js';

/** Receives each Task addressed to the user (console printer, HTTP, SSE …). */
export type OutputHandler = (task: Task) => void;

export interface UserEndpointDeps {
  readonly bus: EventBus;
  readonly logger: Logger;
  readonly inboxLimit: number;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Holds each answer until it is durable, so the user never has an answer a restart would give again. */
  readonly order: DurableOrder;
}

/**
 * The human's door (agent id `user`). What the user says goes straight to its target; what
 * agents address to `user` lands in the inbox and reaches every output handler, an answer once
 * it is durable.
 */
export class UserEndpoint {
  readonly id = 'user';
  readonly #inbox: Task[] = [];
  /** The final replies among them, by task id, so looking one up does not scan the inbox. */
  readonly #answers = new Map<string, Task>();
  readonly #handlers = new Set<OutputHandler>();
  readonly #actor: Actor<typeof userEndpointMachine>;
  readonly #subscription: Subscription;

  constructor(private readonly deps: UserEndpointDeps) {
    const machine = userEndpointMachine.provide({
      actions: {
        forwardInput: (_, { task }) => deps.bus.publish(task),
        deliverToUser: (_, { task }) => deps.order.pass(task, (held) => this.#deliver(held)),
      },
    });
    this.#actor = createActor(machine, { id: 'user', ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }) });
    this.#actor.start();
    this.#subscription = deps.bus.subscribe({ to: 'user' }, (task) => this.#actor.send({ type: 'task.received', task }), 'user');
    this.#actor.send({ type: 'endpoint.open' });
  }

  /**
   * Throws (a coded TroupeError) when the endpoint's machine would refuse `task` as the user's input now.
   *
   * @internal
   */
  check(task: Task): void {
    if (task.from !== 'user') throw new TroupeError('invalid_input', 'user input must come from "user"');
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.can(inputEvent(task))) return;
    // Running refuses only input addressed to `user`; every other state refuses all input.
    if (snapshot.value === 'running') throw new TroupeError('user_to_user', 'a user message cannot be addressed to "user"');
    throw new TroupeError('intake_closed', `message refused: the user endpoint is ${snapshot.value === 'spawning' ? 'not open yet' : 'shutting down'}`);
  }

  /**
   * Forwards a Task the user wrote; throws (and publishes nothing) when it is refused.
   *
   * @internal
   */
  input(task: Task): void {
    this.check(task);
    this.#actor.send(inputEvent(task));
  }

  /** Registers an output handler; returns the function that removes it. */
  onOutput(handler: OutputHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /**
   * Puts back what the user had received before a restart (from the org store), oldest first.
   *
   * @internal
   */
  restoreInbox(tasks: readonly Task[]): void {
    for (const task of tasks.slice(-this.deps.inboxLimit)) this.#keep(task);
  }

  /** The final reply to `taskId` among what the inbox holds, if any. */
  answerTo(taskId: string): Task | undefined {
    return this.#answers.get(taskId);
  }

  /** Resolves with the final Task of `taskId` once it reaches the user; rejects with `request_timeout` after `timeoutMs` on `clock`. */
  waitForAnswer(taskId: string, timeoutMs: number, clock: Clock): Promise<Task> {
    const known = this.answerTo(taskId);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = clock.setTimeout(() => {
        stop();
        reject(new TroupeError('request_timeout', `no answer to task ${taskId} within ${timeoutMs} ms`, { context: { taskId } }));
      }, timeoutMs);
      const stop = this.onOutput((task) => {
        if (task.id !== taskId || !finalStatuses.has(task.status)) return;
        clock.clearTimeout(timer);
        stop();
        resolve(task);
      });
    });
  }

  /** What agents have sent the user, oldest first (bounded; the org store keeps the full log). */
  inbox(): readonly Task[] {
    return this.#inbox;
  }

  get state(): string {
    return this.#actor.getSnapshot().value;
  }

  /**
   * Stops taking input; answers to work in flight are still delivered.
   *
   * @internal
   */
  drain(): void {
    this.#actor.send({ type: 'endpoint.close' });
  }

  /**
   * Ends the endpoint: no more deliveries.
   *
   * @internal
   */
  close(): void {
    this.#actor.send({ type: 'endpoint.closed' });
    this.#subscription.unsubscribe();
    this.#actor.stop();
  }

  #keep(task: Task): void {
    this.#inbox.push(task);
    if (finalStatuses.has(task.status)) this.#answers.set(task.id, task);
    if (this.#inbox.length <= this.deps.inboxLimit) return;
    const dropped = this.#inbox.shift();
    if (dropped !== undefined && this.#answers.get(dropped.id) === dropped) this.#answers.delete(dropped.id);
  }

  #deliver(task: Task): void {
    this.#keep(task);
    for (const handler of this.#handlers) {
      try {
        handler(task);
      } catch (error) {
        this.deps.logger.error({ taskId: task.id, error: describeError(error) }, 'output handler failed');
      }
    }
  }
}

function inputEvent(task: Task): UserEndpointEvent {
  return { type: 'user.input', task };
}

import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type Task, isReplyStatus } from '../../task/index.js';
import type { HeldUntilDurable } from '../limits/heldUntilDurable.js';
import type { Journal } from './journal.js';

/** A reply to the user that settles its Task (final, or asking for input): what a restart must never give again once the user has it. */
function isAnswerToUser(task: Task): boolean {
  return task.to === 'user' && isReplyStatus(task.status);
}

/**
 * Hands Tasks on in the order they came, each answer to the user only once it is durable: its
 * entry in the message log and its agent's mark that the Task is answered. A kill -9 after the
 * user has an answer then finds that Task answered, and a restart never answers it again. Other
 * Tasks pass at once unless an answer before them is still held. With a journal that keeps
 * nothing, everything passes at once. What it holds counts in `limit`, shared by the runtime's
 * outputs, whose bound intake keeps (see `HeldUntilDurable`).
 */
export class DurableOrder {
  readonly #journal: Journal;
  readonly #logger: Logger;
  readonly #limit: HeldUntilDurable;
  #held = 0;
  #tail: Promise<void> = Promise.resolve();

  constructor(journal: Journal, logger: Logger, limit: HeldUntilDurable) {
    this.#journal = journal;
    this.#logger = logger;
    this.#limit = limit;
  }

  /** Calls `deliver` with `task` now, or once it and every Task before it may leave. */
  pass(task: Task, deliver: (task: Task) => void): void {
    const answer = isAnswerToUser(task);
    if (!this.#journal.persistent || (this.#held === 0 && !answer)) {
      deliver(task);
      return;
    }
    this.#held += 1;
    this.#limit.hold();
    const written = answer ? this.#written(task) : undefined;
    this.#tail = this.#tail.then(async () => {
      await written;
      this.#held -= 1;
      this.#limit.release();
      deliver(task);
    });
  }

  /** Tasks from `source` in order, answers to the user once durable (see the class). */
  static operator(journal: Journal, logger: Logger, limit: HeldUntilDurable): MonoTypeOperatorFunction<Task> {
    return (source) =>
      new Observable<Task>((subscriber) => {
        const order = new DurableOrder(journal, logger, limit);
        return source.subscribe({
          next: (task) => order.pass(task, (held) => subscriber.next(held)),
          error: (error: unknown) => subscriber.error(error),
          complete: () => void order.#tail.then(() => subscriber.complete()),
        });
      });
  }

  /**
   * Waits for what the answer's turn wrote beside it to be durable. The wait starts a microtask
   * later: the answer is handed on while it is being published, and its log entry and answered
   * mark are queued by the same synchronous publish, after this subscriber may have been called.
   * A store that failed is logged; the answer still leaves, or its asker would wait forever.
   */
  async #written(task: Task): Promise<void> {
    await Promise.resolve();
    try {
      await this.#journal.durable();
    } catch (error) {
      this.#logger.error({ taskId: task.id, error: describeError(error) }, 'an answer left before it was durable: the store failed');
    }
  }
}

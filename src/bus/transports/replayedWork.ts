import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Task } from '../../task/index.js';
import type { GivenWork } from '../transport.js';
import { RecentIds } from './recentIds.js';

/** What recognised work as given before: the transport's window of recent work, or a store's record. */
export type RememberedBy = 'window' | 'store';

// A space never occurs in an agent or Task id, so one key cannot be read as another.
export function workKeyOf(task: Pick<Task, 'to' | 'id'>): string {
  return `${task.to} ${task.id}`;
}

/**
 * The work (an agent and a Task id) a transport's bus was given or sent, to recognise a replay
 * of it from the wire: the newest `windowTasks` in memory, and, when a runtime with a store has
 * lent its record (`consult`), what the store says was given, so a replay reaching a bus that
 * restarted since is recognised too. The window is asked first: the store only for work the
 * window does not hold.
 */
export class ReplayedWork {
  readonly #window: RecentIds;
  readonly #logger: Logger;
  #record: GivenWork | undefined;

  constructor(windowTasks: number, logger: Logger) {
    this.#window = new RecentIds(windowTasks);
    this.#logger = logger;
  }

  /** Remembers `task` as given. */
  add(task: Task): void {
    this.#window.add(workKeyOf(task));
  }

  /** What recognises `task` as work given before, or undefined for new work. */
  seenBefore(task: Task): RememberedBy | undefined {
    if (this.#window.has(workKeyOf(task))) return 'window';
    return this.#inRecord(task) ? 'store' : undefined;
  }

  /** Consults `record` too, until the returned function is called (one record at a time: the newest). */
  consult(record: GivenWork): () => void {
    this.#record = record;
    return () => {
      if (this.#record === record) this.#record = undefined;
    };
  }

  #inRecord(task: Task): boolean {
    if (this.#record === undefined) return false;
    try {
      return this.#record.given(task.to, task.id);
    } catch (error) {
      // The connection's reader must go on: the work is taken as new, as without a store.
      this.#logger.error({ taskId: task.id, to: task.to, error: describeError(error) }, 'could not read whether work from NATS was given before');
      return false;
    }
  }
}

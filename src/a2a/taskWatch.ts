import type { Subscription } from 'rxjs';
import type { Runtime } from '../runtime/index.js';
import type { Task } from '../task/index.js';

/** What a watcher of one session is told: the updates its Tasks send the user, and the observations of its turns. */
export type SessionListener = (task: Task) => void;

/**
 * One subscription to the runtime's events for every A2A task in flight, not one each: each bus
 * Task for the user or an observer is looked up once by its session. Subscribed only while some
 * session is watched, so a runtime whose A2A endpoint is idle pays nothing per event.
 */
export class TaskWatch {
  readonly #runtime: Runtime;
  readonly #listeners = new Map<string, Set<SessionListener>>();
  #subscription: Subscription | undefined;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** Calls `listener` with what the Tasks of `sessionId` send the user and observers until the returned function is called. */
  watch(sessionId: string, listener: SessionListener): () => void {
    let listeners = this.#listeners.get(sessionId);
    if (listeners === undefined) this.#listeners.set(sessionId, (listeners = new Set()));
    listeners.add(listener);
    this.#subscription ??= this.#runtime.events().subscribe((task) => this.#dispatch(task));
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(sessionId);
      if (this.#listeners.size === 0) {
        this.#subscription?.unsubscribe();
        this.#subscription = undefined;
      }
    };
  }

  #dispatch(task: Task): void {
    if (task.to !== 'user' && task.to !== 'observer') return;
    const listeners = this.#listeners.get(task.sessionId);
    if (listeners !== undefined) for (const listener of [...listeners]) listener(task);
  }
}

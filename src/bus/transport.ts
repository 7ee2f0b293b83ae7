import type { Task } from '../task/index.js';

/** What a bus wants a transport to bring it: Tasks for a target, or Tasks of an action pattern. */
export type Interest = { readonly target: string } | { readonly pattern: string };

/**
 * Moves Tasks between buses. The in-process transport hands them straight back; a network
 * transport (NATS) serialises them and subscribes only to the interests its bus declares,
 * on subjects derived from society, target and action (see `subjectOf`).
 */
export interface Transport {
  readonly name: string;
  /**
   * Whether buses elsewhere may receive what this one sends. When false (one process), a bus
   * knows from its own subscribers whether anyone would see a Task.
   */
  readonly reachesOtherBuses: boolean;
  /** Where Tasks arriving for this bus go. Called once, by the bus. */
  attach(deliver: (task: Task) => void): void;
  /** Hands a Task over for delivery to every interested bus (including this one). */
  send(task: Task): void;
  /** Declares an interest; the returned function withdraws it. */
  declare(interest: Interest): () => void;
  /** Resolves once every Task sent and every interest declared before the call is in effect everywhere. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Delivers every Task back to the one bus in this process, synchronously. */
export class InProcessTransport implements Transport {
  readonly name = 'in-process';
  readonly reachesOtherBuses = false;
  #deliver: ((task: Task) => void) | undefined;

  attach(deliver: (task: Task) => void): void {
    this.#deliver = deliver;
  }

  send(task: Task): void {
    this.#deliver?.(task);
  }

  declare(): () => void {
    return () => undefined;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#deliver = undefined;
    return Promise.resolve();
  }
}

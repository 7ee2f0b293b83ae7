import type { Clock, TimerHandle } from '../../clock.js';

/** How long, and how many, fire-and-forget writes may wait to be issued together. */
export interface WriteBatchLimits {
  /** The longest a write waits before it is issued (ms). */
  readonly delayMs: number;
  /** Issued at once when this many are waiting. */
  readonly maxWrites: number;
}

/**
 * Fire-and-forget writes held back and issued together, in order, in one synchronous section:
 * the org store commits what is issued in one event-loop turn as one transaction, so a ReAct
 * step's records (the model's reply, the tool-call log, the tool's result) cost one commit and
 * one fsync instead of one each. Whoever needs them durable calls `issue` first.
 */
export class WriteBatch {
  readonly #limits: WriteBatchLimits;
  readonly #clock: Clock;
  #writes: (() => void)[] = [];
  #timer: TimerHandle | undefined;

  constructor(limits: WriteBatchLimits, clock: Clock) {
    this.#limits = limits;
    this.#clock = clock;
  }

  add(write: () => void): void {
    this.#writes.push(write);
    if (this.#writes.length >= this.#limits.maxWrites) this.issue();
    else this.#timer ??= this.#clock.setTimeout(() => this.issue(), this.#limits.delayMs);
  }

  /** Issues every waiting write now, oldest first. */
  issue(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const writes = this.#writes;
    this.#writes = [];
    for (const write of writes) write();
  }
}

import type { Clock, TimerHandle } from '../../clock.js';

/** How long, and how many, fire-and-forget writes may wait to be issued together. */
export interface WriteBatchLimits {
  /** The longest a write waits before it is issued (ms). */
  readonly delayMs: number;
  /** Issued at once when the writes waiting hold this many records. */
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
  /** Records the held writes will write (a write may carry several). */
  #records = 0;
  #timer: TimerHandle | undefined;

  constructor(limits: WriteBatchLimits, clock: Clock) {
    this.#limits = limits;
    this.#clock = clock;
  }

  /** Holds `write`, which writes `records` records when issued; a write counts as one at least, so the writes held stay bounded too. */
  add(write: () => void, records = 1): void {
    this.#writes.push(write);
    this.joined(Math.max(1, records));
  }

  /** `records` more records joined a write already held (it writes them when issued). */
  joined(records: number): void {
    this.#records += records;
    if (this.#records >= this.#limits.maxWrites) this.issue();
    else this.#timer ??= this.#clock.setTimeout(() => this.issue(), this.#limits.delayMs);
  }

  /** Issues every waiting write now, oldest first. */
  issue(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const writes = this.#writes;
    this.#writes = [];
    this.#records = 0;
    for (const write of writes) write();
  }
}

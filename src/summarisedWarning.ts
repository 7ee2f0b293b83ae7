import { type Clock, type TimerHandle, unrefTimer } from './clock.js';
import type { Logger } from './logger.js';

/**
 * One warning line per interval however often the thing it reports happens: a flood of bad input
 * must not become a flood of log lines. The first occurrence after a quiet interval is logged at
 * once, with its own fields; the rest of that interval is counted by kind and logged as one line
 * at its end, with the first of them as the example.
 */
export class SummarisedWarning<Kind extends string> {
  #counts = new Map<Kind, number>();
  #example: Record<string, unknown> | undefined;
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** The line's message: the same for the first occurrence and for each summary. */
    private readonly message: string,
    readonly intervalMs: number,
  ) {}

  /** One occurrence of `kind`, described by `fields` (logged if it is the first of a quiet interval, else counted). */
  add(kind: Kind, fields: Record<string, unknown>): void {
    if (this.#closed) return;
    if (this.#timer === undefined) {
      this.logger.warn({ kind, ...fields }, this.message);
      this.#startInterval();
      return;
    }
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    this.#example ??= { kind, ...fields };
  }

  /** Logs what is counted and stops: nothing counted is lost when its owner closes. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#report();
  }

  #startInterval(): void {
    this.#timer = this.clock.setTimeout(() => this.#intervalEnded(), this.intervalMs);
    // Only a report waits on it: it must not keep a process alive.
    unrefTimer(this.#timer);
  }

  #intervalEnded(): void {
    this.#timer = undefined;
    // A quiet interval ends the summaries; a busy one opens the next.
    if (this.#report()) this.#startInterval();
  }

  /** Logs the interval's counts, if any; whether there were. */
  #report(): boolean {
    if (this.#counts.size === 0) return false;
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    this.logger.warn({ more: total, byKind: Object.fromEntries(this.#counts), intervalMs: this.intervalMs, example: this.#example }, this.message);
    this.#counts = new Map();
    this.#example = undefined;
    return true;
  }
}

import type { Clock } from '../clock.js';
import type { RunRecord } from './recordingFormat.js';

/**
 * The clock of a replay. A run's readings are not all taken in one order that a replay can
 * repeat: a model client reads the clock inside its calls, timers and I/O interleave as they
 * will. So each reading is replayed between the same landmarks it was recorded between: the
 * records around it (an id made, a Task published, a model or tool call answered). When the
 * replay reaches a landmark (`sync`), the clock moves to the readings recorded right after it
 * and hands them out in order; once they are used up, time stands still until the next
 * landmark. Readings the replay does not take (the model client's, which does not run) are skipped.
 */
export class ReplayClock {
  readonly #readings: number[] = [];
  /** Where the readings after each landmark start, landmarks in the order recorded. */
  readonly #starts: number[] = [];
  readonly #ordinals = new Map<RunRecord, number>();
  #next = 0;
  /** Where the readings being handed out end; undefined before the first landmark. */
  #end: number | undefined;
  #last = 0;

  /** Adds readings recorded next. */
  add(readings: readonly number[]): void {
    for (const at of readings) this.#readings.push(at);
  }

  /** Marks `record` as the landmark the readings added next follow. */
  mark(record: RunRecord): void {
    this.#ordinals.set(record, this.#starts.length);
    this.#starts.push(this.#readings.length);
  }

  /** The replay reached `record`: the readings recorded after it come next. */
  sync(record: RunRecord): void {
    const ordinal = this.#ordinals.get(record);
    if (ordinal === undefined) return;
    this.#next = this.#starts[ordinal] ?? this.#readings.length;
    this.#end = this.#starts[ordinal + 1] ?? this.#readings.length;
  }

  now(): number {
    const end = this.#end ?? this.#starts[0] ?? this.#readings.length;
    if (this.#next < end) this.#last = this.#readings[this.#next++] ?? this.#last;
    return this.#last;
  }

  /** A Clock reading this one, its timers `timers`'s. */
  clock(timers: Clock): Clock {
    return {
      now: () => this.now(),
      setTimeout: (callback, ms) => timers.setTimeout(callback, ms),
      clearTimeout: (handle) => timers.clearTimeout(handle),
    };
  }
}

import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long one slice of a compression's synchronous work may run before the event loop gets a
 * turn. A slice ends after the step that crossed it, and the costliest step (an hnswlib insert,
 * or a merge's few removals and one insert) takes about a millisecond, so a slice holds the loop
 * for well under the tens of milliseconds an HTTP reply or an agent's turn can wait.
 */
export const sliceMs = 8;

/**
 * Cuts long synchronous work into slices of about `sliceMs` each, with a turn of the event loop
 * between two. Measured on the process's own clock, not the injected one: this bounds real CPU
 * time, which a simulated clock does not see. A loop asks `spent` after each step, synchronously,
 * and awaits `pause()` only when it is true, so no other work runs inside a slice.
 * @example
 * const budget = new TurnBudget(untilIndexSaved);
 * for (const plan of plans) {
 *   if (budget.spent) await budget.pause();
 *   apply(plan);
 * }
 */
export class TurnBudget {
  readonly #beforeNextSlice: () => Promise<void>;
  #sliceStart = performance.now();

  /** `beforeNextSlice`: what must be over before the work goes on after a turn (an index file being saved). */
  constructor(beforeNextSlice: () => Promise<void> = () => Promise.resolve()) {
    this.#beforeNextSlice = beforeNextSlice;
  }

  /** True once the current slice has run for `sliceMs`. */
  get spent(): boolean {
    return performance.now() - this.#sliceStart >= sliceMs;
  }

  /** Gives the event loop a turn, waits for `beforeNextSlice`, and starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    await this.#beforeNextSlice();
    this.#sliceStart = performance.now();
  }
}

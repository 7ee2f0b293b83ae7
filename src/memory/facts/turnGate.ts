import { setImmediate as nextTurn } from 'node:timers/promises';
import { sliceMs } from './turnBudget.js';

/**
 * Lets the synchronous sections of many concurrent callers run for about `sliceMs` in one turn
 * of the event loop; those that come later in that turn wait for the next. Adds to one L4 come in
 * bursts (every add that waited for a compression resumes when it ends, and each add of a flood
 * resumes when its LMDB commit does), each with an hnswlib insert of milliseconds, and a burst of
 * them held the loop for seconds. A caller alone in its turn never waits. The caller asks
 * `admits()` right before its section, with no await between, so the time its predecessors in
 * the turn took is already counted.
 * @example
 * while (!gate.admits()) await gate.nextTurn();
 * insertSynchronously();
 */
export class TurnGate {
  #sliceStart = 0;
  /** Whether the turn the current slice started in is over (a new caller then starts a new slice). */
  #turnOver = true;

  /** True when a synchronous section may run now (it then must, before any await). */
  admits(): boolean {
    if (this.#turnOver) {
      this.#startSlice();
      return true;
    }
    return performance.now() - this.#sliceStart < sliceMs;
  }

  /** Resolves in the next turn of the event loop. */
  nextTurn(): Promise<void> {
    return nextTurn();
  }

  #startSlice(): void {
    this.#sliceStart = performance.now();
    this.#turnOver = false;
    // Queued before any caller that waits in this turn, so it runs first in the turn they resume in.
    setImmediate(() => {
      this.#turnOver = true;
    });
  }
}

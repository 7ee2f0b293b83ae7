import type { Clock, TimerHandle } from '../../clock.js';

/**
 * A turn's time budget (`maxTaskMs`) on the runtime's clock: `spent` runs when it is used up.
 * It stands still while the turn waits for a person's approval, which may take far longer than
 * any turn should work.
 */
export class TurnBudget {
  #handle: TimerHandle | null;
  #deadline: number;
  #left: number | null = null;

  constructor(
    private readonly clock: Clock,
    ms: number,
    private readonly spent: () => void,
  ) {
    this.#deadline = clock.now() + ms;
    this.#handle = clock.setTimeout(spent, ms);
  }

  pause(): void {
    if (this.#left !== null || this.#handle === null) return;
    this.#left = Math.max(0, this.#deadline - this.clock.now());
    this.clock.clearTimeout(this.#handle);
    this.#handle = null;
  }

  resume(): void {
    if (this.#left === null) return;
    this.#deadline = this.clock.now() + this.#left;
    this.#handle = this.clock.setTimeout(this.spent, this.#left);
    this.#left = null;
  }

  clear(): void {
    if (this.#handle !== null) this.clock.clearTimeout(this.#handle);
    this.#handle = null;
    this.#left = null;
  }
}

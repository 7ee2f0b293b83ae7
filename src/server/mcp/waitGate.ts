/**
 * The bound on tool calls waiting for an answer at once (`maxMcpWaits`): each holds a request
 * open, so past it a call returns at once with its task id instead of waiting.
 */
export class WaitGate {
  readonly #max: number;
  #waiting = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** True when the call may wait (then `leave` when it stops); false when the bound is reached. */
  enter(): boolean {
    if (this.#waiting >= this.#max) return false;
    this.#waiting += 1;
    return true;
  }

  leave(): void {
    this.#waiting -= 1;
  }

  /** Why a call did not wait, in words a model reads. */
  refusal(): string {
    return `not waited: all ${this.#max} places for calls waiting for answers are taken (maxMcpWaits)`;
  }
}

import { TroupeError } from '../../errors.js';

/** How long a client refused while the store catches up is told to wait before trying again. */
const storeRetryAfterSeconds = 1;

/**
 * What a runtime's outputs hold back together until the store commits (see `DurableOrder`): each
 * answer to the user waiting for its commit, and every Task behind it. Nothing held may be dropped
 * or let out early, so the bound `maxHeldUntilDurable` is kept by taking in less: while this many
 * are held, the user's new work is refused at intake (`store_behind`). Work already taken still
 * runs, so what it says meanwhile may take the count past the bound.
 */
export class HeldUntilDurable {
  #held = 0;

  constructor(readonly limit: number) {}

  /** Tasks held now, over every output. */
  get held(): number {
    return this.#held;
  }

  /** One more Task held. */
  hold(): void {
    this.#held += 1;
  }

  /** One held Task let out. */
  release(): void {
    this.#held -= 1;
  }

  /** Why new work is refused now (`store_behind`), or null while fewer than the limit are held. */
  refusal(): TroupeError | null {
    if (this.#held < this.limit) return null;
    return new TroupeError(
      'store_behind',
      `${this.#held} Tasks wait for the org store to commit the answers before them (maxHeldUntilDurable ${this.limit}): the store is behind; try again later`,
      { context: { held: this.#held, retryAfterSeconds: storeRetryAfterSeconds } },
    );
  }
}

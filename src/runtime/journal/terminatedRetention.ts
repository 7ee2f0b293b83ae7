import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Journal } from './journal.js';

/** How many terminations go between two checks of `terminatedAgentsKept`. */
export const retentionCheckEvery = 16;
/** The most terminated agents one round forgets: rounds follow each other until none is past the limit. */
export const maxForgottenPerRound = 256;

export interface TerminatedRetentionDeps {
  readonly journal: Pick<Journal, 'forgetRetired'>;
  /** Erases what else is kept of agents about to be forgotten (their memories), before their records go. */
  readonly erase: (agentIds: readonly string[]) => Promise<void>;
  readonly logger: Logger;
}

/**
 * Keeps a service that spawns an agent per request from growing its store without bound: every
 * `retentionCheckEvery` terminations (and once at start), the oldest terminated agents past
 * `terminatedAgentsKept` are forgotten, their memories erased first, so a crash in between leaves
 * records whose memory is gone (forgotten by the next round), never a memory nobody owns. Rounds
 * run one at a time, off the turn's path; a failed one is logged and the next check retries.
 */
export class TerminatedRetention {
  readonly #deps: TerminatedRetentionDeps;
  #terminations = 0;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(deps: TerminatedRetentionDeps) {
    this.#deps = deps;
  }

  /** An agent was recorded terminated. */
  terminated(): void {
    if (++this.#terminations % retentionCheckEvery === 0) this.check();
  }

  /** Forgets what is past the limit now, in the background (after the round running, if one is). */
  check(): void {
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#rounds().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.check();
      }
    });
  }

  /** Resolves once no round runs (what closing waits for before the memories and the store close). */
  async settled(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  async #rounds(): Promise<void> {
    const { journal, erase, logger } = this.#deps;
    try {
      for (;;) {
        const forgotten = await journal.forgetRetired(maxForgottenPerRound, erase);
        if (forgotten.length > 0) logger.debug({ forgotten: forgotten.length }, 'forgot the oldest terminated agents past terminatedAgentsKept');
        if (forgotten.length < maxForgottenPerRound) return;
      }
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'forgetting terminated agents failed; the next check retries');
    }
  }
}

import type { Clock } from '../../clock.js';
import type { ActivityTracker } from '../agent/activity.js';
import { waitForQuiet } from './quiet.js';

/**
 * The drains of terminations in progress: each closes its agents' intake and waits, as a
 * shutdown's drain does, until its subtree has no work left or its deadline passes. A shutdown
 * cuts them all short and waits for every termination to end before the store closes.
 */
export class Drains {
  readonly #cuts = new Set<AbortController>();
  readonly #terminations = new Set<Promise<void>>();

  constructor(
    private readonly activity: ActivityTracker,
    private readonly clock: Clock,
  ) {}

  /**
   * Closes the intake of `agents` and waits until none of `subtree` is busy, the deadline passes
   * or a shutdown cuts it short, on the runtime's clock. Returns the reason what is left is
   * cancelled with.
   */
  async drain(agents: readonly { drain(): void }[], subtree: readonly string[], reason: string, timeoutMs: number): Promise<string> {
    for (const agent of agents) agent.drain();
    const quiet = (): boolean => subtree.every((id) => !this.activity.isBusy(id));
    // Already quiet (an idle agent, the common case): nothing to wait for, so nothing a shutdown could cut short.
    if (quiet()) return reason;
    const cut = new AbortController();
    this.#cuts.add(cut);
    try {
      if (await waitForQuiet(quiet, [this.activity.changes$], timeoutMs, this.clock, cut.signal)) return reason;
      return cut.signal.aborted ? `${reason} (drain cut short by shutdown)` : `${reason} (not drained within ${timeoutMs} ms)`;
    } finally {
      this.#cuts.delete(cut);
    }
  }

  /** Runs a termination, remembered until it ends so that a shutdown can wait for it. */
  async track(termination: Promise<void>): Promise<void> {
    this.#terminations.add(termination);
    try {
      await termination;
    } finally {
      this.#terminations.delete(termination);
    }
  }

  /** Ends every drain now: what each had left is cancelled. */
  cutShort(): void {
    for (const cut of this.#cuts) cut.abort();
  }

  /** Resolves once every termination in progress has ended (recorded, its agents stopped). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#terminations);
  }
}

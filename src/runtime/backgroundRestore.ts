import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PendingAgents, RestoreProgress } from './pendingAgents.js';

/** A restore's progress, and whether it is over. */
export interface RestoreState extends RestoreProgress {
  /** Over: every agent restored, or the runtime shut down first (then `restored` < `agents`, and the rest is still in the store). */
  readonly done: boolean;
}

/** Lets the event loop run what is ready (I/O, timers) before the next slice. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface BackgroundRestoreOptions {
  readonly sliceTasks: number;
  readonly logger: Logger;
  readonly clock: Clock;
  /** What the restore waits for before each slice: a turn of the event loop (a test may hold it, to see the restore in progress). */
  readonly betweenSlices?: () => Promise<void>;
}

/**
 * Starts a restored organisation's agents in the background, a slice at a time, yielding to the
 * event loop between slices so the runtime answers requests meanwhile: each slice starts the
 * oldest pending agents until the Tasks handed back to them reach `sliceTasks`. An agent a Task
 * is sent to starts at once, outside the slices (see `PendingAgents`). Once started, an agent's
 * turns wait for a model-call slot like any other, so the Tasks resume `maxConcurrentModelCalls`
 * at a time. `stop` (a shutdown) ends it between two slices, leaving the rest in the store.
 */
export class BackgroundRestore {
  readonly #pending: PendingAgents;
  readonly #options: BackgroundRestoreOptions;
  #stopped = false;
  #done = false;
  #finish: (state: RestoreState) => void = () => undefined;
  /** Resolves once the restore is over (finished, or stopped by a shutdown); at once when there was nothing to restore. */
  readonly finished = new Promise<RestoreState>((resolve) => (this.#finish = resolve));

  constructor(pending: PendingAgents, options: BackgroundRestoreOptions) {
    this.#pending = pending;
    this.#options = options;
  }

  /** Starts the restore of the agents pending now; called once, when the organisation is known. */
  start(): void {
    void this.#run(this.#options).then(this.#finish);
  }

  state(): RestoreState {
    return { ...this.#pending.progress(), done: this.#done };
  }

  /** Starts no more agents in the background; those not started stay in the store, as they were. */
  stop(): void {
    this.#stopped = true;
  }

  /** Whether agents are left for the background to start. */
  #left(): boolean {
    return this.#pending.size > 0 && !this.#stopped;
  }

  async #run({ sliceTasks, logger, clock, betweenSlices = yieldToEventLoop }: BackgroundRestoreOptions): Promise<RestoreState> {
    const started = clock.now();
    const { agents } = this.#pending.progress();
    if (agents > 0) logger.info({ agents, sliceTasks }, 'restoring agents in the background');
    // Yield first: whoever created the runtime gets it (and can open its HTTP API) before any slice runs.
    while (this.#left()) {
      await betweenSlices();
      // A shutdown may have stopped it, or Tasks started the rest, while it yielded.
      if (this.#left()) this.#pending.startNext(sliceTasks);
    }
    this.#done = true;
    const state = this.state();
    if (agents > 0) {
      const fields = { agents, restored: state.restored, tasks: state.tasks, ms: clock.now() - started };
      logger.info(fields, this.#stopped && state.restored < agents ? 'restore stopped by shutdown; the rest stays in the store' : 'agents restored');
    }
    return state;
  }
}

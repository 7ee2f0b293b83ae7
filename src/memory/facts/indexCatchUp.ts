import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { FactSet } from './factSet.js';
import { spareTime } from './spareTime.js';
import type { TurnGate } from './turnGate.js';

/** What an index catch-up works with: the store's set, and the gate its adds pass. */
export interface IndexCatchUpDeps {
  readonly agentId: string;
  readonly set: FactSet;
  /** Shared with the store's adds, so the two take turns within a slice. */
  readonly gate: TurnGate;
  readonly untilIndexSaved: () => Promise<void>;
  readonly logger: Logger;
}

/**
 * Puts the vectors adds and imports left for an agent's L4 index into it (see FactSet.indexSome),
 * in slices between turns of the event loop (an hnswlib insert takes about half a millisecond),
 * each once the process has spare time (see spareTime): a busy process does not pay for the index
 * while it is busy, and the store's `maxUnindexed` bounds how far the index may fall behind. Once
 * something waits for it to be done (a compression, a flush), it runs a slice every turn instead.
 * Never while the index file is being saved; at most one run at a time. A failure is logged: the
 * vectors stay where searches compare with them directly, and a reopen rebuilds the index from the
 * store.
 */
export class IndexCatchUp {
  readonly #deps: IndexCatchUpDeps;
  #running: Promise<void> | undefined;
  /** Callers waiting for the run to be done: while there are any, it stops waiting for spare time. */
  #waiting = 0;

  constructor(deps: IndexCatchUpDeps) {
    this.#deps = deps;
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Starts a run when vectors wait and none runs. */
  start(): void {
    const { set, gate, untilIndexSaved, logger, agentId } = this.#deps;
    if (this.#running !== undefined || set.vectors.unindexed === 0) return;
    const run = async (): Promise<void> => {
      const index = await set.index;
      if (index === null) return;
      for (;;) {
        await spareTime(() => this.#waiting > 0);
        await untilIndexSaved();
        if (!gate.admits()) await gate.nextTurn();
        else if (set.indexSome(index, () => gate.admits()) === 0) return;
      }
    };
    this.#running = run()
      .catch((error: unknown) => logger.error({ agentId, error: describeError(error) }, 'putting facts left for the L4 index into it failed'))
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Resolves once every vector that waited for the index is in it. */
  async done(): Promise<void> {
    this.#waiting++;
    try {
      while (this.#running !== undefined) await this.#running;
    } finally {
      this.#waiting--;
    }
  }
}

import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { FactSet } from './factSet.js';
import type { TurnGate } from './turnGate.js';

/**
 * Puts the vectors an import left for an agent's L4 index into it (see FactSet.indexSome), in
 * slices between turns of the event loop (an hnswlib insert takes about half a millisecond),
 * never while the index file is being saved; at most one run at a time. A failure is logged: the
 * vectors stay where searches compare with them directly, and a reopen rebuilds the index from
 * the store.
 */
export interface IndexCatchUpDeps {
  readonly agentId: string;
  readonly set: FactSet;
  /** Shared with the store's adds, so the two take turns within a slice. */
  readonly gate: TurnGate;
  readonly untilIndexSaved: () => Promise<void>;
  readonly logger: Logger;
}

export class IndexCatchUp {
  readonly #deps: IndexCatchUpDeps;
  #running: Promise<void> | undefined;

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
        await untilIndexSaved();
        if (!gate.admits()) {
          await gate.nextTurn();
          continue;
        }
        if (set.indexSome(index, () => gate.admits()) === 0) return;
      }
    };
    this.#running = run()
      .catch((error: unknown) => logger.error({ agentId, error: describeError(error) }, 'putting imported facts into the L4 index failed'))
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Resolves once every vector that waited for the index is in it. */
  async done(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }
}

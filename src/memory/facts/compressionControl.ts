import { TroupeError, describeError } from '../../errors.js';
import { type CompressionRunDeps, runCompression } from './compressionRun.js';
import type { CompressionReport } from './factSchema.js';
import type { IndexCatchUp } from './indexCatchUp.js';
import { TurnBudget } from './turnBudget.js';

/** What a store's compressions work with: what one compression needs, and the catch-up that fills the index first. */
export interface CompressionControlDeps extends CompressionRunDeps {
  /** Puts the vectors waiting for the index into it: a compression finds clusters through the index. */
  readonly catchUp: IndexCatchUp;
}

/**
 * When one agent's L4 compresses, and who waits for it. At most one compression runs; the store
 * holds at most `compressAbove` facts, so an add that finds it full starts one to make room (down
 * to `keepTopN`, see runCompression) and waits for it, as does every add while one runs, at most
 * `maxWaitingAdds` of them (one more is refused with `memory_full`); an import that would take
 * the store past `compressAbove` is refused before anything is stored.
 */
export class CompressionControl {
  readonly #deps: CompressionControlDeps;
  /** The compression running: every add waits for it, so it holds the store's size to its bound and its report counts every change. */
  #running: Promise<CompressionReport> | undefined;
  /** Adds waiting for #running, at most `maxWaitingAdds`. */
  #waitingAdds = 0;

  constructor(deps: CompressionControlDeps) {
    this.#deps = deps;
  }

  /** The compression running, if one is. */
  get running(): Promise<CompressionReport> | undefined {
    return this.#running;
  }

  /** True above `compressAbove` facts: only a store opened with a lower `compressAbove` than it was filled with (adds never pass it). */
  needed(): boolean {
    return this.#deps.set.size > this.#deps.limits.compressAbove;
  }

  /** A compression for `FactStore.compress`, started once the running one (if any) is over; its caller hears how it went. */
  async compress(): Promise<CompressionReport> {
    while (this.#running !== undefined) await this.#running.catch(() => undefined);
    return this.start(false);
  }

  /**
   * Starts a compression (none runs): `makeRoom`, for an add that found the store full, which logs
   * its report or its failure (the add that started it may have been refused meanwhile); otherwise
   * for `compress()`, whose caller gets both. The index is compacted before adds resume.
   */
  start(makeRoom: boolean): Promise<CompressionReport> {
    const { catchUp, set, logger, agentId } = this.#deps;
    // Clusters are found one group at a time: through the index only for a group too large to
    // compare directly, and then the vectors waiting for it go in first (a search compares with
    // each waiting one). Otherwise they wait on, and those the compression removes never go in.
    const direct = set.vectors.groupsComparedDirectly;
    // Those kept out of the index too: a group searched through it compares with each of them.
    if (!direct) {
      set.vectors.bindAll();
      catchUp.start();
    }
    const ready = direct ? Promise.resolve() : catchUp.done();
    const run = ready
      .then(() => runCompression(this.#deps, makeRoom))
      .then((done) => set.compactIndex(new TurnBudget(() => this.#deps.untilIndexSaved())).then(() => done))
      .finally(() => {
        this.#running = undefined;
      });
    this.#running = run;
    if (makeRoom) {
      run.then(
        // One line a compression, which frees at least compressAbove − keepTopN slots: at most one per that many adds.
        (done) => logger.info({ agentId, ...done }, 'L4 compressed to make room for adds'),
        (error: unknown) => logger.error({ agentId, error: describeError(error) }, 'an L4 compression to make room for adds failed'),
      );
    }
    return run;
  }

  /**
   * Waits for the running compression, as one of at most `maxWaitingAdds` adds (one more is
   * refused with `memory_full`); says how it failed, if it did.
   */
  async waitAsAdd(): Promise<{ error: unknown } | undefined> {
    const running = this.#running;
    if (running === undefined) return undefined;
    const { agentId, set, limits } = this.#deps;
    if (this.#waitingAdds >= limits.maxWaitingAdds) {
      throw new TroupeError(
        'memory_full',
        `agent ${agentId} holds ${set.size} facts while a compression runs, and ${this.#waitingAdds} adds already wait for it, its limit (maxWaitingAdds); try again later`,
        { context: { agentId } },
      );
    }
    this.#waitingAdds++;
    try {
      await running;
      return undefined;
    } catch (error) {
      return { error };
    } finally {
      this.#waitingAdds--;
    }
  }

  /** Refused when `count` more facts would take the store past `compressAbove` (an import is refused whole, before anything is stored). */
  refuseWhenFull(count: number): void {
    const { agentId, set, limits } = this.#deps;
    if (set.size + count <= limits.compressAbove) return;
    throw new TroupeError(
      'memory_full',
      `agent ${agentId} holds ${set.size} facts: ${count} more would be past compressAbove (${limits.compressAbove}); ` +
        `store fewer, or raise memory.facts.compressAbove (at most maxFacts, ${limits.maxFacts})`,
      { context: { agentId } },
    );
  }
}

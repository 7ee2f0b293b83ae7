import { TroupeError, describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { FactChange, FactRecords } from './factRecords.js';
import type { FactMeta } from './factSchema.js';

/**
 * The writes of one agent's L4 to LMDB, each tracked until it is on disk so that a flush (and a
 * close) can wait for every one in flight. A failed write is logged and rethrown as `internal`:
 * memory then holds what the disk may not.
 */
export class TrackedWrites {
  readonly #records: FactRecords;
  readonly #agentId: string;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(records: FactRecords, agentId: string, logger: Logger) {
    this.#records = records;
    this.#agentId = agentId;
    this.#logger = logger;
  }

  /** How many writes are not on disk yet. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves once every write in flight now has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Writes a change (one transaction). */
  write(change: FactChange): Promise<void> {
    return this.#tracked(this.#records.write(change));
  }

  /** Writes many changes in bounded transactions (see FactRecords.writeInParts), each with the bookkeeping `meta()` gives as it is then. */
  writeParts(parts: readonly FactChange[], meta: () => FactMeta): Promise<void> {
    return this.#tracked(this.#records.writeInParts(parts, meta));
  }

  async #tracked(writing: Promise<void>): Promise<void> {
    const write = writing.catch((error: unknown) => {
      this.#logger.error({ agentId: this.#agentId, error: describeError(error) }, 'an L4 memory write failed; memory holds what the disk may not');
      throw new TroupeError('internal', `could not store agent ${this.#agentId}'s L4 facts: ${describeError(error)}`, { cause: error });
    });
    this.#inFlight.add(write);
    try {
      await write;
    } finally {
      this.#inFlight.delete(write);
    }
  }
}

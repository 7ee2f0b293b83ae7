import type { RootDatabase } from 'lmdb';
import { TroupeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Test seam: called inside each write's transaction after its own puts, with the attempt
 * number (1 or 2). A throw there simulates a failed write, which must roll back.
 */
export type WriteFault = (label: string, attempt: number) => void;

/** Runs writes durably: each `run` resolves only once its transaction is committed and on disk. */
export interface DurableWriter {
  /**
   * Runs `op` (synchronous lmdb reads and puts) in its own nested transaction and resolves
   * with its result after the commit is flushed. A TroupeError other than 'internal' thrown
   * by `op` is a refusal (unknown agent, duplicate id): it rolls back and is passed on as is.
   * Any other failure is retried once, then logged and rejected as TroupeError('internal').
   */
  run<T>(label: string, op: () => T): Promise<T>;
  /** Stops taking writes and resolves when every queued write has settled. */
  close(): Promise<void>;
}

interface Pending {
  readonly label: string;
  readonly op: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Group commit over `transactionSync`. Why this and not async puts + `await db.flushed`:
 * - `transactionSync` (default flags) commits and fdatasyncs before it returns, and a throw
 *   inside it (or inside a nested child transaction) rolls back; async `transaction()` does
 *   not roll back, and on this machine its callbacks never even run (lmdb 3.5, Node 20).
 * - Reads inside the transaction see its own writes, so sequence numbers are allocated from
 *   the stored last key rather than from counters that could drift from disk.
 * Writes requested in the same event-loop turn are queued and committed together: one outer
 * transaction (one fsync), each write in its own child transaction so one failure rolls back
 * alone. A single writer pays one fsync per write; concurrent writers share it.
 */
export function createDurableWriter(root: RootDatabase, logger: Logger, fault?: WriteFault): DurableWriter {
  let queue: Pending[] = [];
  let closed = false;
  let drained: Promise<void> = Promise.resolve();

  function attempt(pending: Pending): Outcome {
    for (let attemptNo = 1; ; attemptNo++) {
      try {
        const value = root.transactionSync(() => {
          const result = pending.op();
          fault?.(pending.label, attemptNo);
          return result;
        });
        return { ok: true, value };
      } catch (error) {
        if (error instanceof TroupeError && error.code !== 'internal') return { ok: false, error };
        if (attemptNo === 1) {
          logger.warn({ write: pending.label, error: describeError(error) }, 'org store write failed; retrying once');
          continue;
        }
        return { ok: false, error: failed(pending.label, error) };
      }
    }
  }

  function failed(label: string, error: unknown): TroupeError {
    logger.error({ write: label, error: describeError(error) }, 'org store write failed twice; giving up');
    return new TroupeError('internal', `org store write "${label}" failed: ${describeError(error)}`, { cause: error });
  }

  function commit(batch: readonly Pending[]): Outcome[] {
    return root.transactionSync(() => batch.map(attempt));
  }

  function drain(): void {
    const batch = queue;
    queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = commit(batch);
    } catch (error) {
      // The outer commit itself failed: everything in it rolled back, so rerun the batch once.
      logger.warn({ writes: batch.length, error: describeError(error) }, 'org store commit failed; retrying once');
      try {
        outcomes = commit(batch);
      } catch (again) {
        outcomes = batch.map((pending) => ({ ok: false, error: failed(pending.label, again) }));
      }
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok === true) pending.resolve(outcome.value);
      else pending.reject(outcome?.error ?? new TroupeError('internal', `org store write "${pending.label}" lost`));
    });
  }

  return {
    run<T>(label: string, op: () => T): Promise<T> {
      if (closed) return Promise.reject(new TroupeError('internal', `org store is closed (write "${label}")`));
      return new Promise<T>((resolve, reject) => {
        queue.push({ label, op, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length === 1) {
          // setImmediate lets every write of this turn join the batch before it commits.
          drained = new Promise((done) =>
            setImmediate(() => {
              drain();
              done();
            }),
          );
        }
      });
    },
    async close(): Promise<void> {
      closed = true;
      await drained;
    },
  };
}

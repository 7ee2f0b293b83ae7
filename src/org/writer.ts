import type { RootDatabase } from 'lmdb';
import { TroupeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InFlightView } from './inFlight.js';
import type { CommitListener, WriteFault } from './types.js';
import type { Op, Staged } from './writes.js';

/** Runs writes durably, in the order requested, committing and fsyncing off the main thread. */
export interface DurableWriter {
  /**
   * Stages `stage` (synchronous reads; see writes.ts), issues its puts and removes, and resolves
   * with its result once they are committed, readable and flushed to disk. A `checked` write is
   * staged only after every earlier write has committed, so its reads of disk are exact. A
   * TroupeError other than 'internal' thrown while staging is a refusal, passed on as is, with
   * nothing written. Any other failure is retried once, then logged and rejected as
   * TroupeError('internal'). `onCommitted` is called once the write is committed (readable, and
   * kept if the process dies), before its fsync; never for a write that is not.
   */
  run<T>(label: string, checked: boolean, stage: () => Staged<T>, onCommitted?: () => void): Promise<T>;
  /** Resolves once every write requested before the call has settled (durable, refused or failed). */
  flushed(): Promise<void>;
  /** Stops taking writes and resolves when every queued write has settled. */
  close(): Promise<void>;
}

interface Pending {
  readonly label: string;
  readonly checked: boolean;
  readonly stage: () => Staged<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Called once (see run), then cleared: a retried write commits twice. */
  onCommitted: (() => void) | undefined;
  /** Everything requested before this write has settled. */
  readonly before: Promise<unknown>;
}

const nothing = (): undefined => undefined;

const settled = (promise: Promise<unknown>): Promise<void> => promise.then(nothing, nothing);

function failed(logger: Logger, label: string, error: unknown): TroupeError {
  logger.error({ write: label, error: describeError(error) }, 'org store write failed twice; giving up');
  return new TroupeError('internal', `org store write "${label}" failed: ${describeError(error)}`, { cause: error });
}

/** Stages the write (retrying once), or says why it cannot be written. */
function stage(pending: Pending, logger: Logger, fault: WriteFault | undefined): { ok: true; staged: Staged<unknown> } | { ok: false; error: unknown } {
  for (let attempt = 1; ; attempt++) {
    try {
      const staged = pending.stage();
      fault?.(pending.label, attempt);
      return { ok: true, staged };
    } catch (error) {
      if (error instanceof TroupeError && error.code !== 'internal') return { ok: false, error };
      if (attempt === 2) return { ok: false, error: failed(logger, pending.label, error) };
      logger.warn({ write: pending.label, error: describeError(error) }, 'org store write failed; retrying once');
    }
  }
}

/** Tells the write's `onCommitted`, once; what it throws is the caller's, not a failure of the write. */
function told(pending: Pending, logger: Logger): void {
  const onCommitted = pending.onCommitted;
  if (onCommitted === undefined) return;
  pending.onCommitted = undefined;
  try {
    onCommitted();
  } catch (error) {
    logger.error({ write: pending.label, error: describeError(error) }, 'org store: what waited for a commit failed');
  }
}

/** Issues the ops in this synchronous section (one lmdb transaction); resolves once committed, then once flushed. */
function issue(root: RootDatabase, ops: readonly Op[]): { committed: Promise<unknown>; flushed: Promise<unknown> } {
  let committed: Promise<unknown> = Promise.resolve();
  for (const op of ops) committed = 'remove' in op ? op.db.remove(op.key) : op.db.put(op.key, op.value);
  // `root.flushed` is a thenable read when its `then` is called: called here, synchronously,
  // it is the flush of the transaction the ops just joined (and of every one before it).
  const flushed = new Promise<unknown>((resolve, reject) => void root.flushed.then(resolve, reject));
  return { committed, flushed };
}

/**
 * Async lmdb writes, in request order. Why this is durable and ordered:
 * - lmdb-js puts every async put and remove issued in one event-loop turn into one transaction,
 *   committed by its write thread in issue order; with `overlappingSync` (lmdb's default on
 *   Linux, kept) the fsync of one transaction overlaps the commit of the next, and a restart
 *   (after a kill, or after an OS crash from the last flushed transaction) sees a prefix of the
 *   transactions. A write's ops are issued together in one synchronous section, so it lands
 *   whole, and a crash loses only a suffix of whole writes.
 * - A write resolves after its transaction's commit (then it is readable: lmdb renews the read
 *   snapshot) and after `root.flushed` taken right after its ops were issued, which is that
 *   transaction's fsync. A write with nothing to issue waits for every write before it.
 * - Writes are issued at request time unless a `checked` write waits at the head of the queue
 *   for earlier commits: then later writes queue behind it, so issue order is request order.
 *   Nothing here uses `transactionSync`, which would fsync on the main thread and could commit
 *   ahead of queued async writes.
 * - A failed commit (a disk error, not a crash) loses its whole transaction; its writes are
 *   issued once more, behind writes issued since, and rejected if that fails too. So the order
 *   on disk is request order except around a reported failure.
 */
export function createDurableWriter(
  root: RootDatabase,
  view: InFlightView,
  logger: Logger,
  hooks: { readonly fault?: WriteFault | undefined; readonly committed?: CommitListener | undefined } = {},
): DurableWriter {
  const { fault, committed: onCommit } = hooks;
  const queue: Pending[] = [];
  let uncommitted = 0;
  let closed = false;
  // Settles once every write requested so far has settled.
  let tail: Promise<unknown> = Promise.resolve();

  async function write(pending: Pending, staged: Staged<unknown>): Promise<void> {
    for (const update of staged.updates) view.set(update.key, update.value, update.keep);
    uncommitted += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      for (const update of staged.updates) view.release(update.key);
      uncommitted -= 1;
      if (uncommitted === 0) pump();
    };
    try {
      for (let attempt = 1; ; attempt++) {
        // Monotonic, and not the injected clock: a measure is no input of the run (see observedModel).
        const issued = performance.now();
        const { committed, flushed } = issue(root, staged.ops);
        try {
          await committed;
          release();
          told(pending, logger);
          await flushed;
          onCommit?.((performance.now() - issued) / 1000);
          pending.resolve(staged.result);
          return;
        } catch (error) {
          // A failed commit loses its whole transaction; issuing the same puts again is idempotent.
          if (attempt === 2) throw error;
          logger.warn({ write: pending.label, error: describeError(error) }, 'org store commit failed; retrying once');
        }
      }
    } catch (error) {
      release();
      pending.reject(failed(logger, pending.label, error));
    }
  }

  /** Issues queued writes in order, stopping at a checked write while earlier ones are uncommitted. */
  function pump(): void {
    for (let pending = queue[0]; pending !== undefined; pending = queue[0]) {
      if (pending.checked && uncommitted > 0) return;
      queue.shift();
      const outcome = stage(pending, logger, fault);
      if (!outcome.ok) pending.reject(outcome.error);
      else if (outcome.staged.ops.length === 0) {
        const { result } = outcome.staged;
        void pending.before.then(() => {
          told(pending, logger);
          pending.resolve(result);
        });
      } else void write(pending, outcome.staged);
    }
  }

  return {
    run<T>(label: string, checked: boolean, stageFn: () => Staged<T>, onCommitted?: () => void): Promise<T> {
      if (closed) return Promise.reject(new TroupeError('internal', `org store is closed (write "${label}")`));
      const promise = new Promise<T>((resolve, reject) => {
        queue.push({ label, checked, stage: stageFn, resolve: resolve as (value: unknown) => void, reject, onCommitted, before: tail });
      });
      // Resolved with nothing: `Promise.all`'s array of results would nest one level per write
      // (the last tail inside it), and every write ever made would stay on the heap.
      tail = Promise.all([tail, settled(promise)]).then(nothing);
      pump();
      return promise;
    },
    flushed: () => tail.then(nothing),
    async close(): Promise<void> {
      closed = true;
      await tail;
    },
  };
}

import type { Key } from 'lmdb';
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InFlightView } from './inFlight.js';
import { isSeq, showKey } from './keys.js';
import { nextQuarantineSeq, quarantineEntry } from './quarantine.js';
import type { SubDbs } from './types.js';
import { givenWorkKeyReason, messageKeyReason, waitingKeyReason } from './validators.js';
import type { DurableWriter } from './writer.js';

/**
 * The sub-dbs whose values are validated when they are read, not when the store opens: the
 * message log (every Task of every tree) and the waiting Tasks (every Task accepted and not yet
 * answered). They hold most of the records, and a restart needs neither before it is usable: a
 * log is read when asked for, an agent's waiting Tasks when its actor starts. Opening checks only
 * their keys. The guarantee moves with them: a record that fails validation is never returned
 * and never crashes the reader; the read that finds it skips it, and a durable write moves it to
 * the quarantine and reports it, as opening would have. Until then `quarantined()` does not list it.
 */
export type CheckedOnRead = 'messages' | 'messageOrder' | 'givenWork' | 'mailboxes';

/** All that opening checks of the sub-dbs checked on read: their keys. */
export const checkedOnReadKeys: Readonly<Record<CheckedOnRead, (key: unknown) => string | undefined>> = {
  messages: messageKeyReason,
  // Read only by retention, which passes over a value it cannot use (its Task then outlives the limit).
  messageOrder: (key) => (isSeq(key) ? undefined : 'key: expected a sequence number'),
  // As large as the work in the log; asked only whether a key is there, and read by retention, which removes it.
  givenWork: givenWorkKeyReason,
  mailboxes: waitingKeyReason,
};

/** What a read of a sub-db checked on read needs, to quarantine what it skips. */
export interface CheckedReadDeps {
  readonly dbs: SubDbs;
  readonly view: InFlightView;
  readonly writer: DurableWriter;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Moves an invalid record of `db` to the quarantine with an ordinary durable write, once. */
export function moveAside(deps: CheckedReadDeps, db: CheckedOnRead, key: Key, reason: string): void {
  const { dbs, view, writer, logger, clock } = deps;
  const pending = `quarantining\u0000${db}\u0000${showKey(key)}`;
  if (view.read(pending, () => false)) return;
  writer
    .run('quarantine', false, () => {
      const seq = view.read('seq\u0000quarantine', () => nextQuarantineSeq(dbs.quarantine));
      const entry = quarantineEntry(dbs, { db, key, reason }, clock.now());
      return {
        ops: [
          { db: dbs.quarantine, key: seq, value: entry },
          { db: dbs[db], key, remove: true },
        ],
        updates: [
          { key: 'seq\u0000quarantine', value: seq + 1, keep: 'pinned' },
          { key: pending, value: true },
        ],
        result: undefined,
      };
    })
    .then(
      () => logger.warn({ db, key: showKey(key), reason }, 'quarantined an invalid org record'),
      (error: unknown) => logger.error({ db, key: showKey(key), reason, error: describeError(error) }, 'could not quarantine an invalid org record'),
    );
}

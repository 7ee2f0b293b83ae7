import type { Database, Key, RootDatabase } from 'lmdb';
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type SubDbName, isSeq, showKey } from './keys.js';
import type { QuarantineRecord } from './schemas.js';

/** A record found invalid on open, with where it was and why it was moved aside. */
export interface InvalidRecord {
  readonly db: SubDbName;
  readonly key: Key;
  readonly reason: string;
}

/** A quarantined record as `quarantined()` lists it: its position in the quarantine, then the record. */
export type QuarantineEntry = QuarantineRecord & { readonly seq: number };

/**
 * Reads every record of one sub-db and returns those that fail `validate`, including
 * values that do not even decode. Keys are listed first and values read one by one, so one
 * undecodable value cannot stop the scan of the rest.
 */
export function scanDb(name: SubDbName, db: Database<unknown>, validate: (key: unknown, value: unknown) => string | undefined): InvalidRecord[] {
  const invalid: InvalidRecord[] = [];
  for (const key of db.getKeys()) {
    let value: unknown;
    try {
      value = db.get(key);
    } catch (error) {
      invalid.push({ db: name, key, reason: `undecodable: ${describeError(error)}` });
      continue;
    }
    const reason = validate(key, value);
    if (reason !== undefined) invalid.push({ db: name, key, reason });
  }
  return invalid;
}

/** Lists the keys of one sub-db that fail `check`, without reading a value (for the message log, whose values are checked when read). */
export function scanKeys(name: SubDbName, db: Database<unknown>, check: (key: unknown) => string | undefined): InvalidRecord[] {
  const invalid: InvalidRecord[] = [];
  for (const key of db.getKeys()) {
    const reason = check(key);
    if (reason !== undefined) invalid.push({ db: name, key, reason });
  }
  return invalid;
}

/**
 * Moves invalid records into the quarantine sub-db, keeping their raw bytes, key and reason,
 * all in one durable transaction; then reports each one.
 */
export function quarantine(
  root: RootDatabase,
  dbs: Readonly<Record<SubDbName, Database<unknown>>>,
  invalid: readonly InvalidRecord[],
  deps: { clock: Clock; logger: Logger },
): void {
  if (invalid.length === 0) return;
  root.transactionSync(() => {
    let seq = nextQuarantineSeq(dbs.quarantine);
    for (const record of invalid) {
      dbs.quarantine.putSync(seq++, quarantineEntry(dbs, record, deps.clock.now()));
      dbs[record.db].removeSync(record.key);
    }
  });
  for (const record of invalid) {
    deps.logger.warn({ db: record.db, key: showKey(record.key), reason: record.reason }, 'quarantined an invalid org record');
  }
}

/** The quarantine record of an invalid record: its raw bytes, where it was and why it was moved. */
export function quarantineEntry(dbs: Readonly<Record<SubDbName, Database<unknown>>>, record: InvalidRecord, at: number): QuarantineRecord {
  const raw = dbs[record.db].getBinary(record.key) ?? new Uint8Array();
  // Copied: lmdb may hand out a buffer that is reused by the next read.
  return { v: 1, db: record.db, key: record.key, raw: Uint8Array.from(raw), reason: record.reason, at };
}

/** Where the next quarantined record goes. */
export function nextQuarantineSeq(db: Database<unknown>): number {
  for (const key of db.getKeys({ reverse: true, limit: 1 })) if (isSeq(key)) return key + 1;
  return 0;
}

/** Every quarantined record, oldest first. */
export function listQuarantine(db: Database<unknown>): QuarantineEntry[] {
  const out: QuarantineEntry[] = [];
  for (const { key, value } of db.getRange()) {
    if (isSeq(key)) out.push({ ...(value as QuarantineRecord), seq: key });
  }
  return out;
}

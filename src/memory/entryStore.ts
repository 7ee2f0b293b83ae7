import type { Database, Key, RootDatabase } from 'lmdb';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { MemoryRecordSchema, type StoredEntry } from './entries.js';

/** The sub-db of the organisation's LMDB environment that holds every agent's L1–L3 entries. */
export const entriesDbName = 'memory-entries';

/** Keys of one agent: `[agentId, seq]`, ordered by seq (lmdb's ordered-binary encoding of arrays). */
function keyOf(agentId: string, seq: number): Key {
  return [agentId, seq];
}

// One handle per environment, shared by all its agents: `openDB` makes a new object per call.
const handles = new WeakMap<RootDatabase, Database<unknown>>();

/** The `memory-entries` sub-db of an environment, or null for a memory that keeps nothing on disk. */
export function entriesDb(root: RootDatabase | null): Database<unknown> | null {
  if (root === null) return null;
  let db = handles.get(root);
  if (db === undefined) {
    db = root.openDB<unknown, Key>({ name: entriesDbName });
    handles.set(root, db);
  }
  return db;
}

/** What one agent's records say: its valid entries in key order, and the next free seq. */
export interface LoadedEntries {
  readonly entries: StoredEntry[];
  readonly nextSeq: number;
}

/**
 * Reads one agent's records. A record that fails its schema (or does not decode) is skipped
 * with an error log line naming the sub-db and key; the next seq is past every key, valid or
 * not, so a new entry never overwrites a record kept for inspection.
 */
export function loadEntries(db: Database<unknown> | null, agentId: string, logger: Logger): LoadedEntries {
  const entries: StoredEntry[] = [];
  let nextSeq = 0;
  if (db === null) return { entries, nextSeq };
  for (const key of db.getKeys({ start: keyOf(agentId, 0), end: keyOf(agentId, Number.MAX_SAFE_INTEGER) })) {
    const seq = Array.isArray(key) ? key[1] : undefined;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) {
      logger.error({ db: entriesDbName, key: JSON.stringify(key), agentId }, 'skipped a memory record: its key is not [agentId, seq]');
      continue;
    }
    nextSeq = Math.max(nextSeq, seq + 1);
    const reason = readRecord(db, key, seq, entries);
    if (reason !== undefined) logger.error({ db: entriesDbName, key: JSON.stringify(key), agentId, reason }, 'skipped an invalid memory record');
  }
  return { entries, nextSeq };
}

/** Reads and validates one record into `into`; returns why it was not taken, if it was not. */
function readRecord(db: Database<unknown>, key: Key, seq: number, into: StoredEntry[]): string | undefined {
  let value: unknown;
  try {
    value = db.get(key);
  } catch (error) {
    return `undecodable: ${describeError(error)}`;
  }
  const parsed = MemoryRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`;
  }
  into.push({ ...parsed.data, seq });
  return undefined;
}

/**
 * Writes `puts` and removes `removes` of one agent in one LMDB transaction, so a kill -9 leaves
 * all of it or none. Puts go first: a put that throws (it cannot encode) stops the transaction
 * before anything is removed. Resolves once committed; without a db, at once.
 */
export function writeEntries(db: Database<unknown> | null, agentId: string, puts: readonly StoredEntry[], removes: readonly number[]): Promise<void> {
  if (db === null || (puts.length === 0 && removes.length === 0)) return Promise.resolve();
  // Inside `transaction` the sync calls write into that one transaction, committed off the main thread.
  return db
    .transaction(() => {
      for (const entry of puts) {
        const { seq, ...record } = entry;
        db.putSync(keyOf(agentId, seq), record);
      }
      for (const seq of removes) db.removeSync(keyOf(agentId, seq));
    })
    .then(() => undefined);
}

import type { Database, Key, RootDatabase } from 'lmdb';
import { TroupeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { givenWorkKeyOfRecord } from './givenWork.js';
import { type SubDbName, isSeq, isSeqKey, metaKey } from './keys.js';
import { AgentRecordSchema, MetaRecordSchema } from './schemas.js';
import { zodReason } from './validators.js';

/** The organisation schema this troupe writes. */
export const currentSchemaVersion = 5;

/** What a migration may do: read and rewrite raw records, inside the opening transaction. */
export interface MigrationTxn {
  /** The version being migrated from; the hook brings the store to `from + 1`. */
  readonly from: number;
  entries(db: SubDbName): { key: Key; value: unknown }[];
  /** The keys of `db` in order, read as they are iterated (none of its values is loaded). */
  keys(db: SubDbName): Iterable<Key>;
  /** One record of `db`, undefined when there is none. */
  get(db: SubDbName, key: Key): unknown;
  put(db: SubDbName, key: Key, value: unknown): void;
  remove(db: SubDbName, key: Key): void;
}

/**
 * `migrations[n]` upgrades a store at schema version n - 1 to version n. On open, the hooks
 * from the stored version up to the current one run in order, in one transaction with the
 * new schema version, so a failed migration leaves the store as it was.
 */
export type Migration = (txn: MigrationTxn) => void;
export type Migrations = Readonly<Record<number, Migration>>;

/**
 * Migrations shipped with troupe. Version 1 is the first. Version 2 adds the message log's order
 * across sessions (`messageOrder`, what retention drops from): built here for the Tasks already
 * logged, session by session in key order, all before any Task logged from now on. Keys only:
 * a log of millions of Tasks is never loaded into memory to be ordered. Version 3 adds the order
 * agents were terminated in (`terminationOrder`, what `terminatedAgentsKept` forgets from), built
 * from the terminated agents' records by `terminatedAt` (then id), before any terminated from now on.
 * Version 4 lets an agent record carry the tool call that spawned it (`spawnCall`); records
 * without one stay valid, so nothing is rewritten: the version is raised so that an older troupe,
 * whose strict schema would quarantine such records, refuses the store instead. Version 5 adds
 * the index of work the log holds (`givenWork`, by agent and Task id), built here from the log in
 * its order, one record read at a time.
 */
export const orgMigrations: Migrations = {
  2: (txn) => {
    let n = 0;
    for (const key of txn.keys('messages')) if (isSeqKey(key)) txn.put('messageOrder', n++, { v: 1, owner: key[0], seq: key[1] });
  },
  3: (txn) => {
    const ended = txn
      .entries('agents')
      .map(({ value }) => AgentRecordSchema.safeParse(value))
      .flatMap((parsed) => (parsed.success && parsed.data.terminatedAt !== null ? [{ id: parsed.data.id, at: parsed.data.terminatedAt }] : []))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    ended.forEach(({ id }, n) => txn.put('terminationOrder', n, { v: 1, agentId: id }));
  },
  4: () => undefined,
  5: (txn) => {
    for (const n of txn.keys('messageOrder')) {
      const work = isSeq(n) ? loggedWork(txn, n) : undefined;
      if (work !== undefined) txn.put('givenWork', work, { v: 1, order: n });
    }
  },
};

/** The given-work key of the Task logged `n`th, if it is work; a record that cannot be read is passed over (it is quarantined when read). */
function loggedWork(txn: MigrationTxn, n: number): [string, string] | undefined {
  try {
    const at = txn.get('messageOrder', n) as { owner?: unknown; seq?: unknown } | undefined;
    return typeof at?.owner === 'string' && isSeq(at.seq) ? givenWorkKeyOfRecord(txn.get('messages', [at.owner, at.seq])) : undefined;
  } catch {
    return undefined;
  }
}

/** What the meta record says: a version, nothing (a new or pre-versioned store), or garbage. */
export type StoredVersion =
  { readonly kind: 'version'; readonly version: number } | { readonly kind: 'absent' } | { readonly kind: 'invalid'; readonly reason: string };

export function readSchemaVersion(meta: Database<unknown>): StoredVersion {
  let value: unknown;
  try {
    value = meta.get(metaKey);
  } catch (error) {
    return { kind: 'invalid', reason: `undecodable: ${describeError(error)}` };
  }
  if (value === undefined) return { kind: 'absent' };
  const parsed = MetaRecordSchema.safeParse(value);
  if (parsed.success) return { kind: 'version', version: parsed.data.schemaVersion };
  return { kind: 'invalid', reason: zodReason(parsed.error) };
}

/**
 * Brings the store from schema version `from` up to `target`, running each hook in order,
 * in one transaction that also records the new version: a failed migration changes nothing.
 */
export function migrate(
  root: RootDatabase,
  dbs: Readonly<Record<SubDbName, Database<unknown>>>,
  options: { logger: Logger; migrations: Migrations; from: number; target: number },
): void {
  const { logger, migrations, from, target } = options;
  if (from > target) {
    throw new TroupeError('internal', `the org store has schema version ${from}, newer than this troupe's ${target}`);
  }
  const txn = (version: number): MigrationTxn => ({
    from: version,
    entries: (db) => [...dbs[db].getRange()].map(({ key, value }) => ({ key, value })),
    keys: (db) => dbs[db].getKeys(),
    get: (db, key) => dbs[db].get(key),
    put: (db, key, value) => {
      dbs[db].putSync(key, value);
    },
    remove: (db, key) => {
      dbs[db].removeSync(key);
    },
  });
  try {
    root.transactionSync(() => {
      for (let version = from; version < target; version++) {
        const hook = migrations[version + 1];
        if (hook === undefined) throw new TroupeError('internal', `no migration from schema version ${version} to ${version + 1}`);
        hook(txn(version));
        logger.info({ from: version, to: version + 1 }, 'org store migrated');
      }
      dbs.meta.putSync(metaKey, { v: 1, schemaVersion: target });
    });
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    throw new TroupeError('internal', `org store migration from version ${from} failed: ${describeError(error)}`, { cause: error });
  }
}

import type { Database, Key, RootDatabase } from 'lmdb';
import type { z } from 'zod';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { halfPrecisionBytes, vectorFromFloatBytes, vectorFromHalfBytes } from '../embedding/vectors.js';
import { type Fact, type FactMeta, FactMetaSchema, FactSchema, type VectorRecord, VectorRecordSchema } from './factSchema.js';

/** The sub-databases of L4 in the shared LMDB environment; keys start with the agent id, so one environment holds every agent. */
const factSubDbs = { facts: 'memory-facts', vectors: 'memory-vectors', meta: 'memory-meta' } as const;

type SubDb = keyof typeof factSubDbs;

export interface FactDbs {
  readonly root: RootDatabase;
  readonly facts: Database<unknown>;
  readonly vectors: Database<unknown>;
  readonly meta: Database<unknown>;
}

// One set of handles per environment, however many agents open a store in it.
const opened = new WeakMap<RootDatabase, FactDbs>();

export function factDbsOf(root: RootDatabase): FactDbs {
  let dbs = opened.get(root);
  if (dbs === undefined) {
    const open = (name: string): Database<unknown> => root.openDB<unknown>({ name });
    dbs = { root, facts: open(factSubDbs.facts), vectors: open(factSubDbs.vectors), meta: open(factSubDbs.meta) };
    opened.set(root, dbs);
  }
  return dbs;
}

/** One change to an agent's L4 records, written as one LMDB transaction. */
export interface FactChange {
  readonly putFacts?: readonly Fact[];
  readonly putVectors?: readonly { readonly id: string; readonly embedder: string; readonly vector: Float32Array }[];
  readonly removeFacts?: readonly string[];
  readonly meta?: FactMeta;
}

/** Records (facts and vectors put or removed) one transaction of `writeInParts` holds at most, unless one part alone is larger. */
export const recordsPerTransaction = 512;

/** Records `change` puts or removes (a removed fact takes its vector with it). */
function recordsOf(change: FactChange): number {
  return (change.putFacts?.length ?? 0) + (change.putVectors?.length ?? 0) + 2 * (change.removeFacts?.length ?? 0);
}

/** `changes` as one change, with `meta`. */
function joined(changes: readonly FactChange[], meta: FactMeta): FactChange {
  return {
    putFacts: changes.flatMap((change) => change.putFacts ?? []),
    putVectors: changes.flatMap((change) => change.putVectors ?? []),
    removeFacts: changes.flatMap((change) => change.removeFacts ?? []),
    meta,
  };
}

/** A vector read back from `memory-vectors`. */
export interface StoredVector {
  readonly id: string;
  readonly embedder: string;
  readonly vector: Float32Array;
}

/** A record that failed its schema, as the log names it. */
export interface SkippedRecord {
  readonly db: string;
  readonly key: string;
  readonly reason: string;
}

/**
 * One agent's L4 records in LMDB, or nothing at all when the runtime has no data dir (`db`
 * null): then every read is empty and every write a no-op, and the store lives in memory only.
 * Records are validated when read; one that fails is skipped with an error log line naming its
 * sub-db and key.
 */
export class FactRecords {
  readonly #dbs: FactDbs | null;
  readonly #agentId: string;
  readonly #logger: Logger;

  constructor(db: RootDatabase | null, agentId: string, logger: Logger) {
    this.#dbs = db === null ? null : factDbsOf(db);
    this.#agentId = agentId;
    this.#logger = logger;
  }

  get persistent(): boolean {
    return this.#dbs !== null;
  }

  /** The agent's bookkeeping: undefined when there is none, 'invalid' when it failed its schema (logged). */
  meta(): FactMeta | undefined | 'invalid' {
    if (this.#dbs === null) return undefined;
    const value = this.#read(this.#dbs.meta, this.#agentId, 'meta');
    if (value === undefined) return undefined;
    return this.#valid('meta', this.#agentId, FactMetaSchema, value) ?? 'invalid';
  }

  /** Every valid fact of the agent (stored under its own id). */
  facts(): Fact[] {
    return this.#each('facts', (key, value) => {
      const fact = this.#valid('facts', key, FactSchema, value);
      if (fact === undefined || fact.id === key[1]) return fact;
      this.#skip({ db: factSubDbs.facts, key: JSON.stringify(key), reason: `id: ${fact.id} stored under another id` });
      return undefined;
    });
  }

  /** Every valid stored vector of the agent, with the fact id it belongs to (copied out: lmdb may reuse the buffer it read into). */
  vectors(): StoredVector[] {
    return this.#each('vectors', (key, value) => {
      const record = this.#valid('vectors', key, VectorRecordSchema, value);
      if (record === undefined) return undefined;
      const vector = record.v === 1 ? vectorFromFloatBytes(record.vector) : vectorFromHalfBytes(record.vector);
      return { id: key[1], embedder: record.embedder, vector };
    });
  }

  /**
   * Writes `parts` (each one all-or-nothing: a merge with the removal of its originals) in
   * transactions of at most `recordsPerTransaction` records each, one after another, each with
   * the bookkeeping `meta()` gives when it is issued. A part larger than that is one transaction
   * of its own. Why not one transaction: LMDB holds a write transaction's dirty pages in memory
   * and keeps those pages for later transactions, so a compression that removed thousands of
   * facts at once left the process tens of megabytes larger for good. Why `meta` is read for each:
   * an add between two transactions takes the next id and writes it; a later transaction writing
   * the bookkeeping as it was before would hand that id out again after a restart.
   */
  async writeInParts(parts: readonly FactChange[], meta: () => FactMeta): Promise<void> {
    let batch: FactChange[] = [];
    let records = 0;
    for (const part of parts) {
      const size = recordsOf(part);
      if (batch.length > 0 && records + size > recordsPerTransaction) {
        await this.write(joined(batch, meta()));
        [batch, records] = [[], 0];
      }
      batch.push(part);
      records += size;
    }
    await this.write(joined(batch, meta()));
  }

  /**
   * Issues every put and remove of `change` in one synchronous section, which lmdb-js commits as
   * one transaction (so a crash leaves all of it or none), and resolves once it is committed and
   * flushed to disk.
   */
  async write(change: FactChange): Promise<void> {
    if (this.#dbs === null) return;
    const { facts, vectors, meta, root } = this.#dbs;
    let committed: Promise<unknown> = Promise.resolve();
    for (const id of change.removeFacts ?? []) {
      void facts.remove([this.#agentId, id]);
      committed = vectors.remove([this.#agentId, id]);
    }
    for (const fact of change.putFacts ?? []) committed = facts.put([this.#agentId, fact.id], fact);
    for (const { id, embedder, vector } of change.putVectors ?? []) {
      const record: VectorRecord = { v: 2, embedder, vector: halfPrecisionBytes(vector) };
      committed = vectors.put([this.#agentId, id], record);
    }
    if (change.meta !== undefined) committed = meta.put(this.#agentId, change.meta);
    // `root.flushed` read now is the flush of the transaction these ops just joined.
    const flushed = new Promise<unknown>((resolve, reject) => void root.flushed.then(resolve, reject));
    await committed;
    await flushed;
  }

  #each<T>(db: SubDb, valid: (key: [string, string], value: unknown) => T | undefined): T[] {
    const dbs = this.#dbs;
    if (dbs === null) return [];
    const found: T[] = [];
    for (const key of dbs[db].getKeys({ start: [this.#agentId], end: [this.#agentId, '~'] })) {
      if (!Array.isArray(key) || key.length !== 2 || key[0] !== this.#agentId || typeof key[1] !== 'string') continue;
      const value = this.#read(dbs[db], key, db);
      const item = value === undefined ? undefined : valid(key as [string, string], value);
      if (item !== undefined) found.push(item);
    }
    return found;
  }

  /** The decoded value, or undefined when absent or undecodable (logged). */
  #read(db: Database<unknown>, key: Key, name: SubDb): unknown {
    try {
      return db.get(key);
    } catch (error) {
      this.#skip({ db: factSubDbs[name], key: JSON.stringify(key), reason: `undecodable: ${describeError(error)}` });
      return undefined;
    }
  }

  #valid<S extends z.ZodType>(name: SubDb, key: Key, schema: S, value: unknown): z.infer<S> | undefined {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const reason = issue === undefined ? 'invalid' : `${issue.path.join('.') || 'record'}: ${issue.message}`;
    this.#skip({ db: factSubDbs[name], key: JSON.stringify(key), reason });
    return undefined;
  }

  #skip(record: SkippedRecord): void {
    this.#logger.error({ agentId: this.#agentId, ...record }, 'skipped an invalid L4 memory record');
  }
}

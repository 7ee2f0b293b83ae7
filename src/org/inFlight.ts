/**
 * What the store has written but lmdb has not committed yet: async puts are invisible to reads
 * until their transaction commits, so a write staged now must see the ones queued before it
 * through this view (the next sequence number of an owner, whether a Task already waits).
 *
 * Invariant the view relies on: the store is the only writer of its directory, and every write
 * that changes a value tracked here goes through the view. Then "the entry if present, else
 * what is on disk" is the value after every write issued so far. An entry lives while a write
 * that set it is uncommitted (`release` drops it once the last such write has committed and
 * its effect is readable from disk), so the view is bounded by the writes in flight; a
 * `pinned` entry (a counter that is costly to read from disk) stays for the store's life. A
 * `recent` entry (a sequence number every append reads) is kept once committed too, among the
 * `recentLimit` most recently written, so a busy conversation or log is not read from disk on
 * every append: its value is the one on disk, as long as the invariant above holds.
 */
export class InFlightView {
  readonly #entries = new Map<string, { value: unknown; writes: number; keep: Keep }>();
  // Committed values of `recent` keys, least recently written first.
  readonly #recent = new Map<string, unknown>();
  readonly #recentLimit: number;

  constructor(recentLimit = 4096) {
    this.#recentLimit = recentLimit;
  }

  /** The value after every issued write: the entry, else a recent committed one, else `fromDisk()`. */
  read<T>(key: string, fromDisk: () => T): T {
    const entry = this.#entries.get(key);
    if (entry !== undefined) return entry.value as T;
    return this.#recent.has(key) ? (this.#recent.get(key) as T) : fromDisk();
  }

  /** Records the value a write just issued leaves behind; call `release` once it has committed. */
  set(key: string, value: unknown, keep: Keep = 'none'): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#recent.delete(key);
      this.#entries.set(key, { value, writes: 1, keep });
    } else {
      entry.value = value;
      entry.writes += 1;
    }
  }

  /**
   * One write that set `key` has committed. Also called when it failed for good: while other
   * writes of the key are in flight the entry keeps their later value (a sequence number the
   * lost write took is skipped, never reused: reusing it could overwrite one of theirs); once
   * none is, the entry goes and the next read from disk is exact again.
   */
  release(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.writes -= 1;
    if (entry.writes > 0 || entry.keep === 'pinned') return;
    this.#entries.delete(key);
    if (entry.keep !== 'recent') return;
    this.#recent.set(key, entry.value);
    if (this.#recent.size > this.#recentLimit) this.#recent.delete(this.#recent.keys().next().value as string);
  }

  /** Entries held, in flight, pinned and recent (for tests of the bound). */
  get size(): number {
    return this.#entries.size + this.#recent.size;
  }
}

/** What becomes of an entry once its writes committed: dropped, kept for the store's life, or kept while among the recent ones. */
export type Keep = 'none' | 'pinned' | 'recent';

/** A value a staged write leaves in the view once issued. */
export interface ViewUpdate {
  readonly key: string;
  readonly value: unknown;
  readonly keep?: Keep;
}

/** View keys, one place so no two writes spell them differently. */
export const viewKey = {
  seq: (db: 'messages' | 'conversations', owner: string): string => `seq\u0000${db}\u0000${owner}`,
  inboxSeq: 'seq\u0000inbox',
  orderSeq: 'seq\u0000messageOrder',
  terminationSeq: 'seq\u0000terminationOrder',
  waitingSeq: 'seq\u0000waiting',
  waiting: (agentId: string, taskId: string): string => `waiting\u0000${agentId}\u0000${taskId}`,
  agent: (agentId: string): string => `agent\u0000${agentId}`,
  role: (roleId: string): string => `role\u0000${roleId}`,
} as const;

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
 * `pinned` entry (a counter that is costly to read from disk) stays for the store's life.
 */
export class InFlightView {
  readonly #entries = new Map<string, { value: unknown; writes: number; pinned: boolean }>();

  /** The value after every issued write: the entry, else `fromDisk()`. */
  read<T>(key: string, fromDisk: () => T): T {
    const entry = this.#entries.get(key);
    return entry === undefined ? fromDisk() : (entry.value as T);
  }

  /** Records the value a write just issued leaves behind; call `release` once it has committed. */
  set(key: string, value: unknown, pinned = false): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) this.#entries.set(key, { value, writes: 1, pinned });
    else {
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
    if (entry.writes === 0 && !entry.pinned) this.#entries.delete(key);
  }

  /** Entries held (for tests of the bound). */
  get size(): number {
    return this.#entries.size;
  }
}

/** A value a staged write leaves in the view once issued. */
export interface ViewUpdate {
  readonly key: string;
  readonly value: unknown;
  readonly pinned?: boolean;
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
  artifact: (hash: string): string => `artifact\u0000${hash}`,
} as const;

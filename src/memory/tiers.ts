import { deepFreeze } from '../task/index.js';
import type { MemoryEntry, PendingFacts, StoredEntry, SummaryEntry, TaskEntry } from './entries.js';

type Tier = StoredEntry['tier'];

/** The entries of `list` in one session (all of them without a `sessionId`), as a new array. */
export function inSession<E extends MemoryEntry>(list: readonly E[] | undefined, filter: { readonly sessionId?: string } | undefined): E[] {
  if (list === undefined) return [];
  const sessionId = filter?.sessionId;
  return sessionId === undefined ? list.slice() : list.filter((entry) => entry.sessionId === sessionId);
}

/** Oldest first: by when the content was observed, then by seq. */
function before(a: StoredEntry, b: StoredEntry): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.seq < b.seq);
}

function insertSorted<E extends StoredEntry>(list: E[], entry: E): void {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(list[mid] as E, entry)) low = mid + 1;
    else high = mid;
  }
  list.splice(low, 0, entry);
}

/**
 * One agent's entries in memory, each tier oldest first. Made at the first entry an agent
 * keeps: an agent that never remembers anything holds none of these arrays.
 */
export class Tiers {
  readonly l1: TaskEntry[] = [];
  readonly l2: TaskEntry[] = [];
  readonly l3: SummaryEntry[] = [];
  /** Summaries that left L3 and whose facts are not all in L4 yet. */
  readonly pending: PendingFacts[] = [];
  /** Tasks `observe` refused because L1 was at its hard bound. */
  refused = 0;
  #version = 0;

  /** Goes up with every change to any tier, so a view made of them can tell it is still current. */
  get version(): number {
    return this.#version;
  }

  static of(entries: Iterable<StoredEntry>): Tiers {
    const tiers = new Tiers();
    for (const entry of entries) tiers.add(entry);
    return tiers;
  }

  /** Puts an entry in the tier its record names, frozen: the query API hands entries out as they are. */
  add(entry: StoredEntry): void {
    insertSorted(this.#list(entry.tier), deepFreeze(entry));
    this.#version++;
  }

  /** Takes the entry with this seq out of `tier`; returns it, or undefined when it is not there. */
  remove(tier: Tier, seq: number): StoredEntry | undefined {
    const list = this.#list(tier);
    const at = list.findIndex((entry) => entry.seq === seq);
    if (at === -1) return undefined;
    this.#version++;
    return list.splice(at, 1)[0];
  }

  /** The entry with this seq in `tier`, if it is there. */
  find(tier: Tier, seq: number): StoredEntry | undefined {
    return this.#list(tier).find((entry) => entry.seq === seq);
  }

  /** The L1–L3 entry with this seq, wherever it is now. */
  findEntry(seq: number): MemoryEntry | undefined {
    const bySeq = (entry: MemoryEntry): boolean => entry.seq === seq;
    return this.l1.find(bySeq) ?? this.l2.find(bySeq) ?? this.l3.find(bySeq);
  }

  /** Puts `entry` where the entry with its seq was (its tier may differ: a move from L1 to L2). */
  replace(tier: Tier, entry: StoredEntry): void {
    this.remove(tier, entry.seq);
    this.add(entry);
  }

  // Each list holds only entries of its tier, so handing it out as a list of any entry is safe here.
  #list(tier: Tier): StoredEntry[] {
    switch (tier) {
      case 'L1':
        return this.l1;
      case 'L2':
        return this.l2;
      case 'L3':
        return this.l3;
      case 'toL4':
        return this.pending;
      default:
        return tier satisfies never;
    }
  }
}

import type { MemoryEntry, SummaryEntry, TaskEntry } from './entries.js';
import { effectiveImportance } from './importance.js';
import { keepBest } from './keepBest.js';
import type { MemoryLimits } from './limits.js';
import type { Tiers } from './tiers.js';

/**
 * One move of a compaction step. Moves go one way only, L1 → L2 → L3 → L4: an important L1
 * entry to L2 (`toL2`), L1 or L2 entries of one session into one L3 summary (`toL3`), L3
 * summaries of one session into L4 facts (`toL4`).
 */
export type Move =
  | { readonly kind: 'toL2'; readonly entry: TaskEntry }
  | { readonly kind: 'toL3'; readonly from: 'L1' | 'L2'; readonly sessionId: string; readonly entries: readonly TaskEntry[] }
  | { readonly kind: 'toL4'; readonly sessionId: string; readonly entries: readonly SummaryEntry[] };

/** What one step will do, and why it stops short of what is due when it does. */
export interface Plan {
  readonly moves: readonly Move[];
  /** Set when something due could not be planned because its next tier is at its hard bound. */
  readonly blocked: string | null;
}

/**
 * The entries due to leave a tier, in the order they should go: those past `maxAgeMs` (oldest
 * first), then as many more as the tier holds beyond `capacity`, lowest effective importance
 * first (or oldest first for L1, whose point is recency).
 */
function leaving<E extends MemoryEntry>(
  list: readonly E[],
  now: number,
  bounds: { readonly capacity: number; readonly maxAgeMs: number; readonly byImportance: boolean },
  limits: MemoryLimits,
): E[] {
  const aged: E[] = [];
  const rest: E[] = [];
  for (const entry of list) (entry.createdAt + bounds.maxAgeMs <= now ? aged : rest).push(entry);
  const over = Math.max(0, rest.length - bounds.capacity);
  if (over === 0) return aged;
  if (!bounds.byImportance) return [...aged, ...rest.slice(0, over)];
  // The `over` least important, ties oldest first, without sorting the whole tier: a step runs
  // every few Tasks, and a tier at its capacity (L3 holds 500) has only a few over it.
  const least: { entry: E; importance: number; at: number }[] = [];
  const above = (a: (typeof least)[number], b: (typeof least)[number]): boolean =>
    a.importance > b.importance || (a.importance === b.importance && a.at > b.at);
  rest.forEach((entry, at) => keepBest(least, { entry, importance: effectiveImportance(entry, now, limits), at }, over, above));
  return [...aged, ...least.sort((a, b) => a.importance - b.importance || a.at - b.at).map(({ entry }) => entry)];
}

/** True when any tier holds more than its capacity or an entry past its age, or facts wait for L4. */
export function compactionDue(tiers: Tiers, now: number, limits: MemoryLimits): boolean {
  const agedFirst = (list: readonly MemoryEntry[], maxAgeMs: number): boolean => (list[0]?.createdAt ?? Infinity) + maxAgeMs <= now;
  return (
    tiers.pending.length > 0 ||
    tiers.l1.length > limits.l1Capacity ||
    tiers.l2.length > limits.l2Capacity ||
    tiers.l3.length > limits.l3Capacity ||
    agedFirst(tiers.l1, limits.l1MaxAgeMs) ||
    agedFirst(tiers.l2, limits.l2MaxAgeMs) ||
    agedFirst(tiers.l3, limits.l3MaxAgeMs)
  );
}

/** Splits entries into batches of one session each, in order of first appearance, `budget` entries in all at most. */
function bySession<E extends MemoryEntry>(entries: readonly E[], budget: number): E[][] {
  const batches = new Map<string, E[]>();
  let taken = 0;
  for (const entry of entries) {
    if (taken === budget) break;
    const batch = batches.get(entry.sessionId) ?? [];
    batch.push(entry);
    batches.set(entry.sessionId, batch);
    taken++;
  }
  return [...batches.values()];
}

/** Whether an L1 entry goes to L2 when it leaves: marked important when observed, or important now (retrievals), and young enough for L2. */
function goesToL2(entry: TaskEntry, now: number, limits: MemoryLimits): boolean {
  const important = entry.forL2 || effectiveImportance(entry, now, limits) > limits.l2Threshold;
  return important && entry.createdAt + limits.l2MaxAgeMs > now;
}

/**
 * Plans one compaction step of at most `limits.entriesPerStep` entries, highest tier first so
 * that a tier makes room before the one below moves into it. A move into a tier at its hard
 * bound (capacity + maxBacklog) is not planned, and the plan says so.
 */
export function planStep(tiers: Tiers, now: number, limits: MemoryLimits): Plan {
  const moves: Move[] = [];
  let budget = limits.entriesPerStep;
  let l2Size = tiers.l2.length;
  let l3Size = tiers.l3.length;
  let blocked: string | null = null;
  const l3Full = (): boolean => l3Size >= limits.l3Capacity + limits.maxBacklog;

  const l3Leaving = leaving(tiers.l3, now, { capacity: limits.l3Capacity, maxAgeMs: limits.l3MaxAgeMs, byImportance: true }, limits);
  for (const batch of bySession(l3Leaving, budget)) {
    moves.push({ kind: 'toL4', sessionId: batch[0]?.sessionId ?? '', entries: batch });
    budget -= batch.length;
    l3Size -= batch.length;
  }

  const l2Leaving = leaving(tiers.l2, now, { capacity: limits.l2Capacity, maxAgeMs: limits.l2MaxAgeMs, byImportance: true }, limits);
  for (const batch of bySession(l2Leaving, budget)) {
    if (l3Full()) {
      blocked = `L3 holds ${l3Size} summaries, its hard bound (l3Capacity + maxBacklog): L2 cannot move into it`;
      break;
    }
    moves.push({ kind: 'toL3', from: 'L2', sessionId: batch[0]?.sessionId ?? '', entries: batch });
    budget -= batch.length;
    l2Size -= batch.length;
    l3Size++;
  }

  const l1Leaving = leaving(tiers.l1, now, { capacity: limits.l1Capacity, maxAgeMs: limits.l1MaxAgeMs, byImportance: false }, limits);
  const toL3: TaskEntry[] = [];
  for (const entry of l1Leaving) {
    if (budget === 0) break;
    if (goesToL2(entry, now, limits) && l2Size < limits.l2Capacity + limits.maxBacklog) {
      moves.push({ kind: 'toL2', entry });
      l2Size++;
    } else toL3.push(entry);
    budget--;
  }
  for (const batch of bySession(toL3, toL3.length)) {
    if (l3Full()) {
      blocked = `L3 holds ${l3Size} summaries, its hard bound (l3Capacity + maxBacklog): L1 cannot move into it`;
      break;
    }
    moves.push({ kind: 'toL3', from: 'L1', sessionId: batch[0]?.sessionId ?? '', entries: batch });
    l3Size++;
  }
  return { moves, blocked };
}

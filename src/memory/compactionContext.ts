import type { IdGenerator } from '../ids.js';
import type { Logger } from '../logger.js';
import type { StoredEntry } from './entries.js';
import type { MemoryFacts } from './memoryFacts.js';
import type { MemoryLimits } from './limits.js';
import type { Tiers } from './tiers.js';

/** What a compaction step works on: one agent's tiers, its L4 store, and how it writes. */
export interface CompactionContext {
  readonly agentId: string;
  readonly tiers: Tiers;
  readonly limits: MemoryLimits;
  readonly facts: MemoryFacts;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** A fresh seq for a new entry of this agent. */
  nextSeq(): number;
  /** Puts and removes in one transaction; resolves once committed. */
  write(puts: readonly StoredEntry[], removes: readonly number[]): Promise<void>;
  /** True once the memory is closing: a step stops before its next move. */
  closing(): boolean;
}

/** What one `compact` call moved, by path. */
export interface MoveCounts {
  l1ToL2: number;
  l1ToL3: number;
  l2ToL3: number;
  l3ToL4: number;
}

/** What one `compact` call did, and whether calling it again now would do more. */
export interface CompactionReport {
  /** True when anything moved, or facts waiting for L4 were added. False: calling again now is pointless (see `reason`). */
  readonly progress: boolean;
  /** Why the step stopped short or did nothing (nothing due, a full tier, a helper or the FactStore failing); null when it did all it planned. */
  readonly reason: string | null;
  readonly moved: Readonly<MoveCounts>;
  /** L3 summaries made. */
  readonly summaries: number;
  /** Facts given to L4. */
  readonly facts: number;
  /** Whether compaction is still due after this step. */
  readonly due: boolean;
}

/** The running counts of one step. */
export interface Tally extends MoveCounts {
  summaries: number;
  facts: number;
  /** Pending records whose facts are all in L4 now (and that are gone). */
  finished: number;
}

export function emptyTally(): Tally {
  return { l1ToL2: 0, l1ToL3: 0, l2ToL3: 0, l3ToL4: 0, summaries: 0, facts: 0, finished: 0 };
}

/** True when a step changed anything. */
export function madeProgress(tally: Tally): boolean {
  return Object.values(tally).some((count) => count > 0);
}

/** The report of a step that did `tally` (none: it did not start) and stopped for `reason`. */
export function compactionReport(tally: Tally | undefined, reason: string | null, due: boolean): CompactionReport {
  const { l1ToL2 = 0, l1ToL3 = 0, l2ToL3 = 0, l3ToL4 = 0, summaries = 0, facts = 0 } = tally ?? {};
  return { progress: tally !== undefined && madeProgress(tally), reason, moved: { l1ToL2, l1ToL3, l2ToL3, l3ToL4 }, summaries, facts, due };
}

/** Thrown inside a step to stop it with a reason; never leaves the step. */
export class StepStopped extends Error {}

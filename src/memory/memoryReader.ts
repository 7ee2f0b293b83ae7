import type { SummaryEntry, TaskEntry } from './entries.js';
import type { Fact, FactHit } from './facts/factSchema.js';

/** One session (absent: every session). */
export interface ReaderFilter {
  readonly sessionId?: string;
}

/**
 * What a view of one agent's memory reads: its tiers, its facts, and a search that uses nothing
 * up (no retrieval counted). An open `AgentMemory` is one; so is `StoredMemory`, read from the
 * store when the memory is not open.
 */
export interface MemoryReader {
  readonly agentId: string;
  /** Recent full Tasks, oldest first. */
  l1(filter?: ReaderFilter): TaskEntry[];
  /** Important full Tasks, oldest first. */
  l2(filter?: ReaderFilter): TaskEntry[];
  /** Summaries, oldest first. */
  l3(filter?: ReaderFilter): SummaryEntry[];
  /** Facts, oldest first: with a session, its own and the agent-scope ones. */
  facts(filter?: ReaderFilter): Fact[];
  /** The `k` facts closest to `text` among those `facts(filter)` lists, closest first. */
  peek(text: string, k: number, filter?: ReaderFilter): Promise<FactHit[]>;
}

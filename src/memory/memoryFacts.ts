import type { CompressionReport, Fact, FactHit, NewFact } from './facts/factSchema.js';
import type { RetrievalGraph } from './facts/retrievalGraph.js';

/** What an agent's memory needs of its L4 store. */
export interface MemoryFacts {
  readonly size: number;
  /** Characters a search's query may have (`search` and `peek` refuse a longer one). */
  readonly maxQueryChars: number;
  /** A near-duplicate of a stored fact is merged into it (`merged: true`). */
  add(fact: NewFact): Promise<{ fact: Fact; merged: boolean }>;
  /** Many at once, in order (an import); `merge: false` stores a fact as it is, however close to another. */
  addMany(facts: readonly { readonly fact: unknown; readonly merge: boolean }[]): Promise<{ fact: Fact; merged: boolean }[]>;
  /** Removes facts by id; resolves with those it held. */
  remove(ids: readonly string[]): Promise<string[]>;
  /** The fact an id was merged into, if any. */
  mergedInto(id: string): Fact | undefined;
  /**
   * Facts of that session and agent-scope facts at least `minSimilarity` close, best first, with
   * the nodes of `graph` found and reached beside them; counts a retrieval of each fact.
   */
  search(text: string, k: number, filter: { sessionId: string | null; minSimilarity?: number; graph?: RetrievalGraph | null }): Promise<FactHit[]>;
  /** As `search`, counting no retrieval; without `sessionId`, over every session's facts. */
  peek(text: string, k: number, filter?: { sessionId?: string | null; graph?: RetrievalGraph | null }): Promise<FactHit[]>;
  list(filter?: { sessionId?: string | null }): Fact[];
  /** True when it holds more facts than its compression threshold. */
  needsCompression(): boolean;
  /** Merges (or, without an embedder, drops) facts to shrink; reports what it did. */
  compress(): Promise<CompressionReport>;
  /** Waits for every change in flight, then saves what it keeps beside the store (its index file). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

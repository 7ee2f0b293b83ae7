import type { JsonValue } from '../task/index.js';
import type { CompressionReport } from './facts/factSchema.js';

export type { CompressionReport } from './facts/factSchema.js';

// L4 belongs to part "facts" of issue 14 (src/memory/facts/factStore.ts). These are the parts
// of its contract that an agent's memory uses, written against exactly that contract, so the
// real FactStore fits here as it is; once it lands, these types are the ones it exports.

export type FactScope = 'session' | 'agent';

/** A fact to remember: `scope: 'session'` facts carry their sessionId, `scope: 'agent'` ones null. */
export interface NewFact {
  text: string;
  scope: FactScope;
  sessionId: string | null;
  importance: number;
  metadata?: Record<string, JsonValue> | undefined;
}

export interface Fact extends NewFact {
  v: 1;
  id: string;
  retrievals: number;
  createdAt: number;
  embedder: string | null;
  mergedFrom: string[];
  fidelity: number | null;
}

export interface FactHit {
  fact: Fact;
  similarity: number;
}

/** What an agent's memory needs of its L4 store. */
export interface MemoryFacts {
  readonly size: number;
  /** Characters a search's query may have (`search` and `peek` refuse a longer one). */
  readonly maxQueryChars: number;
  /** A near-duplicate of a stored fact is merged into it (`merged: true`). */
  add(fact: NewFact): Promise<{ fact: Fact; merged: boolean }>;
  /** Facts of that session and agent-scope facts at least `minSimilarity` close, best first; counts a retrieval of each. */
  search(text: string, k: number, filter: { sessionId: string | null; minSimilarity?: number }): Promise<FactHit[]>;
  /** As `search`, counting no retrieval; without `sessionId`, over every session's facts. */
  peek(text: string, k: number, filter?: { sessionId?: string | null }): Promise<FactHit[]>;
  list(filter?: { sessionId?: string | null }): Fact[];
  /** True when it holds more facts than its compression threshold. */
  needsCompression(): boolean;
  /** Merges (or, without an embedder, drops) facts to shrink; reports what it did. */
  compress(): Promise<CompressionReport>;
  /** Waits for every change in flight, then saves what it keeps beside the store (its index file). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

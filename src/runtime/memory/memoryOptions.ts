import { z } from 'zod';
import { type ContextBudget, type ContextBudgetInput, contextBudget } from '../../context/contextBudget.js';
import { type GraphLimitOptions, GraphLimitsSchema } from '../../graph/index.js';
import type { Embedder } from '../../memory/embedding/embedder.js';
import { HashedNgramEmbedder } from '../../memory/embedding/hashedNgramEmbedder.js';
import type { FactLimitOptions } from '../../memory/facts/factLimits.js';
import { limitsOf } from '../../memory/facts/factLimits.js';
import { type MemoryLimitsInput, memoryLimits } from '../../memory/limits.js';
import { parseOrThrow } from '../../task/index.js';

/** How every agent's memory and context are kept: tiers, L4, embedder and the context's budget. */
export interface MemoryOptions {
  /** L1–L3 capacities, ages, the L2 threshold, importance decay (see `MemoryLimitsSchema`). */
  readonly limits?: MemoryLimitsInput;
  /** L4: facts per agent, merge and compression thresholds (see `FactLimitsSchema`). */
  readonly facts?: FactLimitOptions;
  /** Each graph memory (an agent's, the society's): its nodes, edges and the sizes of a node's fields (see `GraphLimitsSchema`). */
  readonly graph?: GraphLimitOptions;
  /**
   * Nodes of each agent's graph recorded from its work (the Tasks it takes and gives as events,
   * its plans' steps, its answers as notes) at most; past it the oldest recorded go first, and
   * nodes its tools made stay. 2,000 by default; 0 records nothing.
   */
  readonly workNodes?: number;
  /** Makes L4's vectors; the offline hashed n-gram embedder by default, null for word overlap only. */
  readonly embedder?: Embedder | null;
  /** A turn's context: its token budget and each source's share (see `ContextBudgetSchema`). */
  readonly context?: ContextBudgetInput;
  /** L4 facts retrieved for each turn's Task (0: none). */
  readonly retrieve?: number;
  /**
   * How close (similarity, -1 to 1) a fact must be to a turn's Task to enter its context, and to
   * a `search_memory` query to be returned; less related facts, agent-scope ones too, are left
   * out. 0.15 by default: with the offline embedder, a question and the fact that answers it
   * score 0.2 to 0.65, unrelated pairs mostly below 0.15.
   */
  readonly minRelevance?: number;
}

/** The settings, checked once at `createRuntime`: a bad value is refused naming it. */
export interface MemorySettings {
  readonly limits: MemoryLimitsInput;
  readonly facts: FactLimitOptions;
  readonly graph: GraphLimitOptions | undefined;
  readonly workNodes: number;
  readonly embedder: Embedder | null;
  readonly budget: ContextBudget;
  readonly retrieve: number;
  readonly minRelevance: number;
}

const CountsSchema = z.object({
  retrieve: z.number().int().nonnegative().max(100).default(8),
  minRelevance: z.number().min(-1).max(1).default(0.15),
  workNodes: z.number().int().nonnegative().max(1_000_000).default(2_000),
});

/** Checks `options` (throwing a ValidationError that names the first bad one) and fills in the defaults. */
export function memorySettings(options: MemoryOptions = {}): MemorySettings {
  const limits = options.limits ?? {};
  const facts = options.facts ?? {};
  memoryLimits(limits);
  limitsOf(facts);
  if (options.graph !== undefined) parseOrThrow(GraphLimitsSchema, options.graph, 'memory.graph');
  const counts = parseOrThrow(CountsSchema, { retrieve: options.retrieve, minRelevance: options.minRelevance, workNodes: options.workNodes }, 'memory');
  return {
    limits,
    facts,
    graph: options.graph,
    embedder: options.embedder === undefined ? new HashedNgramEmbedder() : options.embedder,
    budget: contextBudget(options.context),
    ...counts,
  };
}

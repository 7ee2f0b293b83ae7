import type { Embedder } from '../embedding/embedder.js';
import { boundedOrigins } from './compression.js';
import { jsonBytes } from './factInput.js';
import type { FactLimits } from './factLimits.js';
import type { Fact, NewFact } from './factSchema.js';

/** The record of a new fact, numbered `id`, made `now` with `embedder`'s vector (none without one). */
export function storedFact(fact: NewFact, id: string, now: number, embedder: Embedder | null): Fact {
  return { v: 1, id, ...fact, retrievals: 0, createdAt: now, embedder: embedder?.id ?? null, mergedFrom: [], fidelity: null };
}

/**
 * `twin` with the near-duplicate `fact` merged into it: its text kept, importance the higher of
 * both, metadata joined (the twin's winning, dropped past `maxMetadataBytes`), and `mergedAwayId`
 * (an id taken for the merged-away fact, so its origin is recorded and the id never given again)
 * among its origins.
 */
export function mergedFact(twin: Fact, fact: NewFact, mergedAwayId: string, limits: FactLimits): Fact {
  const metadata = { ...fact.metadata, ...twin.metadata };
  return {
    ...twin,
    importance: Math.max(twin.importance, fact.importance),
    ...(Object.keys(metadata).length === 0 || jsonBytes(metadata) > limits.maxMetadataBytes ? {} : { metadata }),
    mergedFrom: boundedOrigins([...twin.mergedFrom, mergedAwayId], limits.maxMergedFrom),
  };
}

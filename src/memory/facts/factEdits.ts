import type { Embedder } from '../embedding/embedder.js';
import { boundedOrigins } from './compression.js';
import { jsonBytes } from './factInput.js';
import type { FactLimits } from './factLimits.js';
import { type Fact, type NewFact, factIdOf, groupOf } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { VectorIndex } from './vectorIndex.js';

/** The record of a new fact, numbered `id`, made `now` with `embedder`'s vector (none without one). */
function storedFact(fact: NewFact, id: string, now: number, embedder: Embedder | null): Fact {
  return { v: 1, id, ...fact, retrievals: 0, createdAt: now, embedder: embedder?.id ?? null, mergedFrom: [], fidelity: null };
}

/**
 * `twin` with the near-duplicate `fact` merged into it: its text kept, importance the higher of
 * both, metadata joined (the twin's winning, dropped past `maxMetadataBytes`), and `mergedAwayId`
 * (an id taken for the merged-away fact, so its origin is recorded and the id never given again)
 * among its origins.
 */
function mergedFact(twin: Fact, fact: NewFact, mergedAwayId: string, limits: FactLimits): Fact {
  const metadata = { ...fact.metadata, ...twin.metadata };
  return {
    ...twin,
    importance: Math.max(twin.importance, fact.importance),
    ...(Object.keys(metadata).length === 0 || jsonBytes(metadata) > limits.maxMetadataBytes ? {} : { metadata }),
    mergedFrom: boundedOrigins([...twin.mergedFrom, mergedAwayId], limits.maxMergedFrom),
  };
}

/**
 * The stored fact of `set` that `fact` merges into, if any: the nearest of the same scope and
 * session, when at least `mergeThreshold` close (by vectors, or by word overlap without them).
 * With `skipImported`, vectors an import left waiting for the index are not compared (see
 * GroupedVectors.nearest).
 */
export function twinOf(
  set: FactSet,
  fact: NewFact,
  vector: Float32Array | null,
  index: VectorIndex | null,
  mergeThreshold: number,
  skipImported = false,
): Fact | undefined {
  const group = groupOf(fact);
  const sameGroup = (found: Fact | undefined): found is Fact => found !== undefined && groupOf(found) === group;
  const [nearest] =
    vector === null || index === null
      ? (set.words?.nearest(fact.text, 1, (id) => sameGroup(set.get(id))) ?? [])
      : set.vectors.nearest(index, vector, 1, [group], skipImported).map((hit) => ({ id: factIdOf(hit.label), similarity: hit.similarity }));
  return nearest !== undefined && nearest.similarity >= mergeThreshold ? set.get(nearest.id) : undefined;
}

/** Places a new fact in `set` (room for it was checked), made `now` with `embedder`'s vector; its vector goes into `index` now or, when `deferredBy` an add or an import, later, or never while `outside` (see FactSet.insert). Its record is the caller's to write. */
export function placeFact(
  set: FactSet,
  fact: NewFact,
  vector: Float32Array | null,
  index: VectorIndex | null,
  made: { readonly now: number; readonly embedder: Embedder | null; readonly deferredBy?: 'add' | 'import' | 'outside' },
): Fact {
  const stored = storedFact(fact, set.takeId(), made.now, made.embedder);
  set.insert(stored, vector, index, made.deferredBy);
  return stored;
}

/** `twin` with `fact` merged into it (see mergedFact), updated in `set`; its record is the caller's to write. */
export function mergeIntoTwin(set: FactSet, twin: Fact, fact: NewFact, limits: FactLimits): Fact {
  const merged = mergedFact(twin, fact, set.takeId(), limits);
  set.update(merged);
  return merged;
}

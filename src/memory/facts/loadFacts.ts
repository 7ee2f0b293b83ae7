import { TroupeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../embedding/embedder.js';
import { halfPrecision } from '../embedding/vectors.js';
import type { FactLimits } from './factLimits.js';
import type { FactRecords } from './factRecords.js';
import { type Fact, type FactMeta, labelOf } from './factSchema.js';
import { indexFileOf, loadIndex, saveIndex } from './indexFile.js';
import { HnswIndex, loadHnswlib } from './hnswIndex.js';
import { buildVectorIndex } from './createVectorIndex.js';
import { TurnBudget } from './turnBudget.js';
import type { IndexParams, VectorIndex } from './vectorIndex.js';

/** One agent's L4 as read back: its facts, its bookkeeping, and its index when it has vectors. */
export interface LoadedFacts {
  readonly facts: Map<string, Fact>;
  readonly meta: FactMeta;
  readonly index: VectorIndex | null;
  /** Each fact's vector by fact id (empty without an embedder). */
  readonly vectors: ReadonlyMap<string, Float32Array>;
  /** The generation the index file on disk reflects (null when there is none). */
  readonly savedGeneration: number | null;
  /** The labels of the vectors the index does not hold, kept out of it (see GroupedVectors.outside). */
  readonly outside: ReadonlySet<number>;
}

export interface LoadDeps {
  readonly agentId: string;
  readonly embedder: Embedder | null;
  readonly records: FactRecords;
  readonly indexDir: string | null;
  readonly limits: FactLimits;
  readonly logger: Logger;
}

/** How an index of this store is built. */
export function indexParams(dimension: number, limits: FactLimits): IndexParams {
  const { m, efConstruction, efSearch, initialCapacity, exactSearch } = limits;
  return { dimension, m, efConstruction, efSearch, initialCapacity, exactSearch };
}

/**
 * Reads an agent's facts and bookkeeping, refuses an embedder other than the one its vectors were
 * made with, and loads its index: from the index file when it reflects exactly the stored
 * vectors, otherwise rebuilt from them (and saved), with a log line saying why. An agent with no
 * facts loads no index at all (nor hnswlib).
 */
export async function loadFacts(deps: LoadDeps): Promise<LoadedFacts> {
  const { records, embedder } = deps;
  const facts = new Map(records.facts().map((fact) => [fact.id, fact]));
  const stored = records.meta();
  const nextId = Math.max(stored === undefined || stored === 'invalid' ? 0 : stored.nextId, ...[...facts.keys()].map((id) => labelOf(id) + 1));
  if (facts.size === 0) {
    // Nothing stored: whatever embedder was used before, none of its vectors is left to mix with.
    const generation = stored === undefined || stored === 'invalid' ? 0 : stored.generation;
    return {
      facts,
      meta: { v: 1, embedder: embedder?.id ?? null, dimension: embedder?.dimension ?? null, generation, nextId },
      index: null,
      vectors: new Map(),
      savedGeneration: null,
      outside: new Set(),
    };
  }
  const meta = stored === undefined || stored === 'invalid' ? metaFromFacts(facts, nextId) : { ...stored, nextId };
  refuseOtherEmbedder(deps.agentId, meta, embedder);
  if (embedder === null) return { facts, meta, index: null, vectors: new Map(), savedGeneration: null, outside: new Set() };
  // Bookkeeping that was lost cannot vouch for any index file: the index is rebuilt.
  return loadIndexOf(deps, embedder, facts, meta, stored !== undefined && stored !== 'invalid');
}

/** Bookkeeping rebuilt from the facts when its record is missing or invalid. */
function metaFromFacts(facts: ReadonlyMap<string, Fact>, nextId: number): FactMeta {
  const [first] = facts.values();
  return { v: 1, embedder: first?.embedder ?? null, dimension: null, generation: 0, nextId };
}

function refuseOtherEmbedder(agentId: string, meta: FactMeta, embedder: Embedder | null): void {
  const sameId = meta.embedder === (embedder?.id ?? null);
  const sameDimension = meta.dimension === null || embedder === null || meta.dimension === embedder.dimension;
  if (sameId && sameDimension) return;
  const storedAs =
    meta.embedder === null ? 'no embedder (facts without vectors)' : `${meta.embedder}${meta.dimension === null ? '' : ` (${meta.dimension} dimensions)`}`;
  const openedAs = embedder === null ? 'no embedder' : `${embedder.id} (${embedder.dimension} dimensions)`;
  throw new TroupeError(
    'embedder_mismatch',
    `agent ${agentId}'s L4 facts were stored with ${storedAs}, and it was opened with ${openedAs}: vectors of two embedders never mix; open it with the embedder they were made with`,
    { context: { agentId, stored: meta.embedder, opened: embedder?.id ?? null } },
  );
}

async function loadIndexOf(deps: LoadDeps, embedder: Embedder, facts: Map<string, Fact>, meta: FactMeta, trusted: boolean): Promise<LoadedFacts> {
  const params = indexParams(embedder.dimension, deps.limits);
  const withDimension = { ...meta, dimension: embedder.dimension };
  if (deps.indexDir === null) return rebuild(deps, embedder, facts, withDimension, { why: 'there is no index directory (memory only)', save: null });
  const hnswlib = params.exactSearch ? null : await loadHnswlib(deps.logger);
  if (hnswlib === null) return rebuild(deps, embedder, facts, withDimension, { why: 'its searches are exact, with no index file', save: null });
  const file = indexFileOf(deps.indexDir, deps.agentId, embedder);
  const state = { embedder: embedder.id, dimension: embedder.dimension, generation: meta.generation, live: facts.size };
  const loaded = trusted ? await loadIndex(hnswlib, file, state, params) : { stale: 'its memory-meta record was missing or invalid' };
  if (!('index' in loaded)) return rebuild(deps, embedder, facts, withDimension, { why: loaded.stale, save: file });
  // The file holds the graph; searches within a session compare the JS copies, read from the source of truth.
  const vectors = storedVectors(deps, embedder, facts);
  const outside = new Set(loaded.outside);
  const labels = new Set([...facts.keys()].map(labelOf));
  if ([...outside].some((label) => !labels.has(label))) {
    return rebuild(deps, embedder, facts, withDimension, { why: 'it names vectors kept out of it that no stored fact has', save: file });
  }
  if (vectors.size === facts.size) return { facts, meta: withDimension, index: loaded.index, vectors, savedGeneration: meta.generation, outside };
  return rebuild(deps, embedder, facts, withDimension, { why: `${facts.size - vectors.size} of its facts have no usable stored vector`, save: file });
}

/** The stored vectors of `facts` that `embedder` made, by fact id. */
function storedVectors(deps: LoadDeps, embedder: Embedder, facts: ReadonlyMap<string, Fact>): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  for (const stored of deps.records.vectors()) {
    if (facts.has(stored.id) && stored.embedder === embedder.id && stored.vector.length === embedder.dimension) vectors.set(stored.id, stored.vector);
  }
  return vectors;
}

/**
 * Builds the index from the vectors in `memory-vectors` (the source of truth), re-embedding any
 * fact whose vector is missing or unusable, and saves it when there is a file for it.
 */
async function rebuild(
  deps: LoadDeps,
  embedder: Embedder,
  facts: Map<string, Fact>,
  meta: FactMeta,
  how: { why: string; save: string | null },
): Promise<LoadedFacts> {
  const vectors = storedVectors(deps, embedder, facts);
  const missing = [...facts.values()].filter((fact) => !vectors.has(fact.id));
  const made = missing.length === 0 ? [] : (await embedder.embed(missing.map((fact) => fact.text))).map(halfPrecision);
  const putVectors = missing.map((fact, i) => ({ id: fact.id, embedder: embedder.id, vector: made[i] ?? new Float32Array(embedder.dimension) }));
  for (const { id, vector } of putVectors) vectors.set(id, vector);
  // A new generation: no index file saved before this rebuild may pass for it.
  const current = { ...meta, generation: meta.generation + 1 };
  await deps.records.write({ putVectors, meta: current });
  const byLabel = new Map([...vectors].map(([id, vector]) => [labelOf(id), vector]));
  const index = await buildVectorIndex(indexParams(embedder.dimension, deps.limits), byLabel, new TurnBudget(), deps.logger);
  const level = how.save === null ? 'debug' : 'warn';
  deps.logger[level](
    { agentId: deps.agentId, reason: how.why, vectors: vectors.size, reembedded: missing.length },
    'rebuilt the L4 index from the stored vectors',
  );
  if (how.save !== null && index instanceof HnswIndex) {
    await saveIndex(index, how.save, { embedder: embedder.id, dimension: embedder.dimension, generation: current.generation, live: index.size });
  }
  return { facts, meta: current, index, vectors, savedGeneration: how.save === null ? null : current.generation, outside: new Set() };
}

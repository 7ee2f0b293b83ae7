import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../embedding/embedder.js';
import type { CompressionControl } from './compressionControl.js';
import { createVectorIndex } from './createVectorIndex.js';
import { mergeIntoTwin, placeFact, twinOf } from './factEdits.js';
import { embedMany } from './factEmbedding.js';
import type { FactLimits } from './factLimits.js';
import { type Fact, type NewFact, groupOf } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { IndexCatchUp } from './indexCatchUp.js';
import { indexParams } from './loadFacts.js';
import type { TrackedWrites } from './trackedWrites.js';
import type { TurnGate } from './turnGate.js';

/** Facts an import embeds and writes at a time: one embedding request and one transaction's worth of records. */
const batchFacts = 256;

/** What an import works with: the store's set, its embedder and limits, and the parts its adds share with it. */
export interface FactImportDeps {
  readonly set: FactSet;
  readonly embedder: Embedder | null;
  readonly limits: FactLimits;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Shared with single adds: a batch takes as many facts as the turn's slice has room for. */
  readonly gate: TurnGate;
  readonly compression: CompressionControl;
  readonly catchUp: IndexCatchUp;
  readonly writes: TrackedWrites;
  /** Resolves when a batch may change the store: no index save or compression runs, and the turn's slice has room (throws once the store is closed). */
  readyForBatch(): Promise<void>;
}

/** What an import matches its own facts by: their group and text, letter case and runs of spaces aside. */
const sameTextKey = (fact: NewFact): string => `${groupOf(fact)}\u0000${fact.text.trim().replace(/\s+/g, ' ').toLowerCase()}`;

/**
 * Stores checked facts in order (see FactStore.addMany): embedded in batches, each batch's records
 * written in transactions as the turn's slice allows, resolving once every one is on disk. A fact
 * with `merge` goes into a close one the agent held before the import (as an add's does), or into
 * one earlier in the import with the same text; one without (a conversation's turn) is stored as
 * it is. Every vector is left for the index (see IndexCatchUp), which catches up once the whole
 * import is stored: an hnswlib insert costs more than the rest of an item's import. So an import's
 * facts are not compared with each other by vector (each with every one before it would cost the
 * square of the import): facts that are close but not the same stay apart until a compression
 * clusters them. Before it starts, an import with facts to merge waits for the vectors an earlier
 * import left to reach the index, so that its facts are compared with those. Refused with
 * `memory_full` before a batch that would take the store past `compressAbove`.
 */
export async function importFacts(
  deps: FactImportDeps,
  facts: readonly { readonly fact: NewFact; readonly merge: boolean }[],
): Promise<{ fact: Fact; merged: boolean }[]> {
  const { set, embedder, limits, gate } = deps;
  if (set.vectors.unindexedImported > 0 && facts.some(({ merge }) => merge)) await deps.catchUp.done();
  const added: { fact: Fact; merged: boolean }[] = [];
  const writes: Promise<void>[] = [];
  /** This import's facts so far, by group and text: what a later one of the same text merges into. */
  const byText = new Map<string, string>();
  for (let start = 0; start < facts.length; start += batchFacts) {
    const batch = facts.slice(start, start + batchFacts);
    const vectors = await embedMany(
      embedder,
      batch.map(({ fact }) => fact.text),
    );
    const index = vectors === null ? null : await (set.index ??= createVectorIndex(indexParams(embedder?.dimension ?? 0, limits), deps.logger));
    let next = 0;
    while (next < batch.length) {
      await deps.readyForBatch();
      deps.compression.refuseWhenFull(facts.length - added.length);
      // Synchronous from here until the write is issued, as in an add; as many facts as the turn's slice has room for.
      const change = { putFacts: [] as Fact[], putVectors: [] as { id: string; embedder: string; vector: Float32Array }[] };
      do {
        const { fact, merge } = batch[next] as (typeof batch)[number];
        const vector = vectors?.[next] ?? null;
        const key = merge ? sameTextKey(fact) : undefined;
        const earlier = key === undefined ? undefined : byText.get(key);
        const twin = !merge ? undefined : earlier !== undefined ? set.get(earlier) : twinOf(set, fact, vector, index, limits.mergeThreshold, true);
        const stored =
          twin === undefined
            ? placeFact(set, fact, vector, index, { now: deps.clock.now(), embedder, deferredBy: 'import' })
            : mergeIntoTwin(set, twin, fact, limits);
        if (key !== undefined && earlier === undefined) byText.set(key, stored.id);
        change.putFacts.push(stored);
        if (twin === undefined && vector !== null && embedder !== null) change.putVectors.push({ id: stored.id, embedder: embedder.id, vector });
        added.push({ fact: stored, merged: twin !== undefined });
        next++;
      } while (next < batch.length && gate.admits());
      if (change.putVectors.length > 0) set.bumpGeneration();
      writes.push(deps.writes.writeParts([{ ...change, meta: set.meta }], () => set.meta));
    }
  }
  // Once the whole import is stored: indexing between its batches would only slow it down.
  deps.catchUp.start();
  await Promise.all(writes);
  return added;
}

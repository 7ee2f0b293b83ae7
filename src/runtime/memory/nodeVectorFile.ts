import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../memory/embedding/embedder.js';
import { type HnswIndex, loadHnswlib } from '../../memory/facts/hnswIndex.js';
import { indexFileOf, loadLabelledIndex, saveIndex } from '../../memory/facts/indexFile.js';
import type { IndexParams } from '../../memory/facts/vectorIndex.js';

/** What a save of a graph's node vectors records of each label: its node, the digest of the text its vector was made from, and its group. */
const SavedLabelsSchema = z.array(z.tuple([z.number().int().nonnegative(), z.string(), z.string(), z.string()]));
export type SavedLabel = z.infer<typeof SavedLabelsSchema>[number];

/** What a node's vector is checked against at a reopen: a save records this of its text, not the text. */
export const textDigest = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * Where the vectors of `ownerId`'s graph are saved: beside its owner's fact index, as
 * `<indexDir>/<ownerId>.graph.<hash>.hnsw` (owner ids have no dot, so it never passes for an
 * agent's fact index, and erasing an agent's `<agentId>.*` files takes it too).
 */
export function nodeVectorFileOf(indexDir: string, ownerId: string, embedder: Pick<Embedder, 'id' | 'dimension'>): string {
  return indexFileOf(indexDir, `${ownerId}.graph`, embedder);
}

/** A saved index of node vectors as read back: the index, the next label to give, and what each label was made from. */
export interface SavedNodeVectors {
  readonly index: HnswIndex;
  readonly nextLabel: number;
  readonly labels: readonly SavedLabel[];
}

/**
 * The node vectors saved in `file` when it is intact and holds `embedder`'s vectors; otherwise
 * why not (`missing` when there is no file); null when searches are exact (no file is kept).
 */
export async function loadNodeVectors(
  file: string,
  embedder: Pick<Embedder, 'id' | 'dimension'>,
  params: IndexParams,
  logger: Logger,
): Promise<SavedNodeVectors | { stale: string; missing?: true } | null> {
  const hnswlib = params.exactSearch ? null : await loadHnswlib(logger);
  if (hnswlib === null) return null;
  const loaded = await loadLabelledIndex(hnswlib, file, { embedder: embedder.id, dimension: embedder.dimension }, params);
  if (!('index' in loaded)) return loaded;
  const labels = SavedLabelsSchema.safeParse(loaded.labels);
  // The sidecar passed its checksum, so this is a file of another version rather than damage; never trusted either way.
  if (!labels.success || labels.data.length !== loaded.index.size || labels.data.some(([label]) => label >= loaded.generation)) {
    return { stale: 'its description of the labels does not match the index' };
  }
  return { index: loaded.index, nextLabel: loaded.generation, labels: labels.data };
}

/** Saves `index` to `file` atomically (see saveIndex), with what each of its live labels was made from; `nextLabel` is above every label it ever held. */
export async function saveNodeVectors(
  index: HnswIndex,
  file: string,
  embedder: Pick<Embedder, 'id' | 'dimension'>,
  nextLabel: number,
  labels: readonly SavedLabel[],
): Promise<void> {
  await saveIndex(index, file, { embedder: embedder.id, dimension: embedder.dimension, generation: nextLabel, live: labels.length, labels });
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { describeError } from '../../errors.js';
import { HnswIndex } from './hnswIndex.js';
import type { Hnswlib } from './hnswlibApi.js';
import type { IndexParams } from './vectorIndex.js';

/**
 * What an index file reflects, in a small JSON file beside it (`<index>.json`): the embedder and
 * dimension of its vectors, the generation of the stored vectors it was saved at, how many live
 * vectors it holds, and the size and SHA-256 of the index file, so a file that is truncated,
 * garbled or from another save is never handed to hnswlib (whose reader trusts its input).
 */
const SidecarSchema = z.object({
  v: z.literal(1),
  embedder: z.string(),
  dimension: z.number().int().positive(),
  generation: z.number().int().nonnegative(),
  live: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** What the index's owner records of its labels (a graph's: the node and text each was made from); the facts' index records none. */
  labels: z.unknown().optional(),
});
type Sidecar = z.infer<typeof SidecarSchema>;

/** What the caller expects an index file to reflect. */
export interface IndexState {
  readonly embedder: string;
  readonly dimension: number;
  readonly generation: number;
  /** Live vectors (stored facts with a vector). */
  readonly live: number;
  /** What the owner records of the labels (see SidecarSchema), given back by loadLabelledIndex. */
  readonly labels?: unknown;
}

/**
 * Where an agent's index lives: `<indexDir>/<agentId>.<hash>.hnsw`, the hash (of the embedder's id
 * and dimension) keeping the files of two embedders apart. Agent ids are letters, digits, `_` and
 * `-`, safe in a file name.
 */
export function indexFileOf(indexDir: string, agentId: string, embedder: { readonly id: string; readonly dimension: number }): string {
  const hash = createHash('sha256').update(`${embedder.id}\n${embedder.dimension}`).digest('hex').slice(0, 12);
  return join(indexDir, `${agentId}.${hash}.hnsw`);
}

const sidecarOf = (file: string): string => `${file}.json`;

// Numbers each save's temporary files, so two saves in one process never share them.
let saves = 0;

/**
 * Saves `index` to `file` atomically: written under temporary names, then renamed, the index
 * first and its sidecar last. A crash in between leaves the new index with the old sidecar, whose
 * checksum no longer matches, so the next open rebuilds; never a sidecar vouching for a file it
 * does not describe.
 */
export async function saveIndex(index: HnswIndex, file: string, state: IndexState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${++saves}.tmp`;
  try {
    await index.write(temporary);
    const { bytes, sha256 } = await digestOf(temporary);
    const sidecar: Sidecar = { v: 1, ...state, bytes, sha256 };
    await writeFile(sidecarOf(temporary), JSON.stringify(sidecar));
    await rename(temporary, file);
    await rename(sidecarOf(temporary), sidecarOf(file));
  } finally {
    await rm(temporary, { force: true });
    await rm(sidecarOf(temporary), { force: true });
  }
}

/** The labels of the vectors an index file of facts does not hold (see GroupedVectors.outside), in its sidecar's `labels`. */
const OutsideLabelsSchema = z.array(z.number().int().nonnegative()).default([]);

/**
 * The index saved in `file` when it reflects exactly `state` (its vectors, with the labels of
 * those it was saved without, `outside`); otherwise why it cannot be used (to rebuild instead).
 */
export async function loadIndex(
  hnswlib: Hnswlib,
  file: string,
  state: IndexState,
  params: IndexParams,
): Promise<{ index: HnswIndex; outside: number[] } | { stale: string }> {
  let outside: number[] = [];
  const loaded = await readIndexFile(hnswlib, file, state, params, (sidecar) => {
    const labels = OutsideLabelsSchema.safeParse(sidecar.labels);
    if (!labels.success) return `its description ${sidecarOf(file)} is invalid`;
    outside = labels.data;
    return sidecar.generation === state.generation && sidecar.live + outside.length === state.live
      ? null
      : `it was saved at generation ${sidecar.generation} (${sidecar.live + outside.length} vectors), the stored vectors are at ${state.generation} (${state.live})`;
  });
  return 'index' in loaded ? { index: loaded.index, outside } : { stale: loaded.stale };
}

/**
 * The index saved in `file` with vectors of `embedder`, intact, whatever state it was saved at:
 * with the generation and labels its save recorded, for the caller to check each label against
 * what it holds now. Otherwise why it cannot be used.
 */
export async function loadLabelledIndex(
  hnswlib: Hnswlib,
  file: string,
  embedder: Pick<IndexState, 'embedder' | 'dimension'>,
  params: IndexParams,
): Promise<{ index: HnswIndex; generation: number; labels: unknown } | { stale: string; missing?: true }> {
  return readIndexFile(hnswlib, file, embedder, params, () => null);
}

/** The index saved in `file` when its sidecar describes it, holds `embedder`'s vectors, and `vouch` finds nothing against it (its reason otherwise). */
async function readIndexFile(
  hnswlib: Hnswlib,
  file: string,
  embedder: Pick<IndexState, 'embedder' | 'dimension'>,
  params: IndexParams,
  vouch: (sidecar: Sidecar) => string | null,
): Promise<{ index: HnswIndex; generation: number; labels: unknown } | { stale: string; missing?: true }> {
  let sidecar: Sidecar;
  try {
    const parsed = SidecarSchema.safeParse(JSON.parse(await readFile(sidecarOf(file), 'utf8')));
    if (!parsed.success) return { stale: `its description ${sidecarOf(file)} is invalid` };
    sidecar = parsed.data;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stale: 'the index file is missing', missing: true };
    return { stale: `its description is unreadable: ${describeError(error)}` };
  }
  if (sidecar.embedder !== embedder.embedder || sidecar.dimension !== embedder.dimension) {
    return { stale: `it holds vectors of ${sidecar.embedder} (${sidecar.dimension} dimensions)` };
  }
  const against = vouch(sidecar);
  if (against !== null) return { stale: against };
  try {
    const digest = await digestOf(file);
    if (digest.bytes !== sidecar.bytes || digest.sha256 !== sidecar.sha256)
      return { stale: 'the index file does not match its checksum (truncated or damaged)' };
    return { index: await HnswIndex.read(hnswlib, file, params, sidecar.live), generation: sidecar.generation, labels: sidecar.labels };
  } catch (error) {
    return {
      stale: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the index file is missing' : `the index file is unreadable: ${describeError(error)}`,
    };
  }
}

async function digestOf(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { bytes: (await stat(file)).size, sha256: hash.digest('hex') };
}

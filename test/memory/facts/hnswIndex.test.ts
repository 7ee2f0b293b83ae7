import { describe, expect } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { buildVectorIndex } from '../../../src/memory/facts/createVectorIndex.js';
import { HnswIndex, loadHnswlib } from '../../../src/memory/facts/hnswIndex.js';
import type { VectorIndex } from '../../../src/memory/facts/vectorIndex.js';
import { floodFact } from '../../support/clusteredFacts.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

// hnswlib's reuse of a removed vector's slot rewires the links of each of the slot's neighbours,
// about ten times the work of a new insert, and held the event loop for tens to hundreds of
// milliseconds in one synchronous call. The index never reuses a slot: removed vectors stay
// marked until the index is rebuilt without them, in slices, and the rebuild is adopted in place.

const embedder = new HashedNgramEmbedder();
const params = { dimension: embedder.dimension, m: 16, efConstruction: 200, efSearch: 80, initialCapacity: 64, exactSearch: false };

/** An empty hnswlib index made with `params`. */
async function emptyIndex(): Promise<HnswIndex> {
  const hnswlib = await loadHnswlib(silentLogger);
  if (hnswlib === null) throw new Error('hnswlib-node did not load');
  return HnswIndex.create(hnswlib, params);
}

async function vectorsOf(count: number): Promise<Map<number, Float32Array>> {
  const vectors = await embedder.embed(Array.from({ length: count }, (_, i) => floodFact(i, 5).text));
  return new Map(vectors.map((vector, label) => [label, vector]));
}

/** A budget whose every slice is one step: counts the turns a build would give the event loop. */
function stepByStep(): { readonly spent: boolean; pause: () => Promise<void>; pauses: number } {
  const budget = {
    spent: true,
    pauses: 0,
    pause: () => {
      budget.pauses++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
  return budget;
}

const labelsNearest = (index: VectorIndex, query: Float32Array): number[] => index.nearest(query, 5).map((hit) => hit.label);

describe('HnswIndex', () => {
  itWithHnswlib('never reuses a removed vector slot: removed vectors stay deleted, and adds take new slots', async () => {
    const vectors = await vectorsOf(120);
    const index = await emptyIndex();
    for (const [label, vector] of [...vectors].slice(0, 100)) index.add(label, vector);
    for (let label = 0; label < 40; label++) index.remove(label);
    expect([index.size, index.deleted]).toEqual([60, 40]);
    for (const [label, vector] of [...vectors].slice(100)) index.add(label, vector);
    expect([index.size, index.deleted]).toEqual([80, 40]);
    expect(index.nearest(vectors.get(110) as Float32Array, 1)[0]?.label).toBe(110);
  });

  itWithHnswlib('builds an index in slices of its budget, a turn of the event loop between two inserts', async () => {
    const vectors = await vectorsOf(50);
    const budget = stepByStep();
    const built = await buildVectorIndex(params, vectors, budget, silentLogger);
    if (!(built instanceof HnswIndex)) throw new Error('not an hnswlib index');
    expect([built.size, built.deleted]).toEqual([50, 0]);
    expect(budget.pauses).toBe(50);
    for (const [label, vector] of vectors) expect(built.nearest(vector, 1)[0]?.label).toBe(label);
  });

  itWithHnswlib('adopts a rebuild without its deleted vectors, for every holder of the index, with the same neighbours', async () => {
    const vectors = await vectorsOf(200);
    const index = await emptyIndex();
    for (const [label, vector] of vectors) index.add(label, vector);
    for (let label = 0; label < 200; label += 2) index.remove(label);
    const live = new Map([...vectors].filter(([label]) => label % 2 === 1));
    const queries = [...vectors.values()].slice(0, 20);
    const before = queries.map((query) => labelsNearest(index, query));
    const changes = index.changes;
    const rebuilt = await index.rebuilt(live, stepByStep());
    expect(index.adopt(rebuilt, changes)).toBe(true);
    expect([index.size, index.deleted]).toEqual([100, 0]);
    expect(queries.map((query) => labelsNearest(index, query))).toEqual(before);
  });

  itWithHnswlib('refuses a rebuild made before the index last changed', async () => {
    const vectors = await vectorsOf(30);
    const index = await emptyIndex();
    for (const [label, vector] of [...vectors].slice(0, 20)) index.add(label, vector);
    index.remove(0);
    const changes = index.changes;
    const live = new Map([...vectors].slice(1, 20));
    const rebuilt = await index.rebuilt(live, stepByStep());
    index.add(25, vectors.get(25) as Float32Array);
    index.remove(1);
    expect(index.adopt(rebuilt, changes)).toBe(false);
    expect([index.size, index.deleted]).toEqual([19, 2]);
    expect(index.nearest(vectors.get(25) as Float32Array, 1)[0]?.label).toBe(25);
  });
});

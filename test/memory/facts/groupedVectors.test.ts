import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupedVectors } from '../../../src/memory/facts/groupedVectors.js';
import { ExactIndex } from '../../../src/memory/facts/exactIndex.js';
import { HnswIndex } from '../../../src/memory/facts/hnswIndex.js';
import { createVectorIndex } from '../../../src/memory/facts/createVectorIndex.js';
import { silentLogger } from '../../../src/logger.js';
import { hnswlibInstalled } from '../../support/hnswlibTests.js';
import { loggedSeed } from '../../support/loggedSeed.js';

// Searches confined to a few groups (one session's facts and the agent-scope ones) compare the
// query with each candidate when they are few, and go through the index with a filter when they
// are many and a good share of it. Either way the answer is the candidates' nearest, whether the
// index is hnswlib's graph or the exact search that stands in for it without hnswlib-node.

const dimension = 8;
const params = { dimension, m: 16, efConstruction: 200, efSearch: 200, initialCapacity: 64 };

// hnswlib's only where hnswlib-node built (the global setup says when it did not).
const indexKinds = [
  { kind: 'hnswlib', exactSearch: false, type: HnswIndex },
  { kind: 'exact search', exactSearch: true, type: ExactIndex },
].filter((index) => index.exactSearch || hnswlibInstalled());

function unitVector(numbers: readonly number[]): Float32Array {
  const length = Math.hypot(...numbers) || 1;
  return Float32Array.from(numbers, (x) => x / length);
}

/** The `k` nearest labels among `entries` by cosine, computed the slow way. */
function bruteForce(entries: readonly { label: number; group: string; vector: Float32Array }[], query: Float32Array, k: number, groups: readonly string[]) {
  const direction = unitVector([...query]);
  return entries
    .filter((entry) => groups.includes(entry.group))
    .map((entry) => ({ label: entry.label, similarity: entry.vector.reduce((sum, x, i) => sum + x * (direction[i] ?? 0), 0) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);
}

const vectorArb = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dimension, maxLength: dimension }).filter((v) => Math.hypot(...v) > 0.1);

describe.each(indexKinds)('GroupedVectors over $kind', ({ exactSearch, type }) => {
  const newIndex = async () => {
    const index = await createVectorIndex({ ...params, exactSearch }, silentLogger);
    expect(index).toBeInstanceOf(type);
    return index;
  };

  it('a search within groups returns exactly the nearest of their vectors, never one of another group (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ group: fc.constantFrom('', 'session:a', 'session:b', 'session:c'), vector: vectorArb }), { minLength: 1, maxLength: 60 }),
        vectorArb,
        fc.subarray(['', 'session:a', 'session:b', 'session:c'], { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 1, max: 10 }),
        async (drawn, query, groups, k) => {
          const entries = drawn.map((entry, label) => ({ ...entry, label, vector: unitVector(entry.vector) }));
          const index = await newIndex();
          const vectors = new GroupedVectors();
          for (const { label, group, vector } of entries) {
            index.add(label, vector);
            vectors.add(label, group, vector);
          }
          const found = vectors.nearest(index, Float32Array.from(query), k, groups);
          const expected = bruteForce(entries, Float32Array.from(query), k, groups);
          expect(found).toHaveLength(expected.length);
          for (const [i, hit] of found.entries()) expect(hit.similarity).toBeCloseTo(expected[i]?.similarity ?? Number.NaN, 5);
          expect(found.every((hit) => groups.includes(entries[hit.label]?.group ?? '?'))).toBe(true);
        },
      ),
      loggedSeed(`grouped vectors over ${exactSearch ? 'exact search' : 'hnswlib'}, direct comparison`),
    );
  });

  it('a group that is most of a large index is searched through the index, filtered to its labels', async () => {
    const index = await newIndex();
    const vectors = new GroupedVectors();
    const entries: { label: number; group: string; vector: Float32Array }[] = [];
    // Deterministic spread of vectors: 3,000 in session a (past the direct comparison's 2,048), 300 in b.
    for (let label = 0; label < 3300; label++) {
      const vector = unitVector(Array.from({ length: dimension }, (_, i) => Math.sin(label * 0.37 + i * 1.3) + Math.cos(label * 0.11 * (i + 1))));
      const group = label % 11 === 0 ? 'session:b' : 'session:a';
      entries.push({ label, group, vector });
      index.add(label, vector);
      vectors.add(label, group, vector);
    }
    const query = unitVector([1, 0.5, -0.25, 0, 0.75, -1, 0.1, 0.3]);
    const found = vectors.nearest(index, query, 5, ['session:a']);
    expect(found.every((hit) => entries[hit.label]?.group === 'session:a')).toBe(true);
    expect(found[0]?.label).toBe(bruteForce(entries, query, 1, ['session:a'])[0]?.label);
    // And a removed vector is no longer a candidate on either route.
    const nearestInB = bruteForce(entries, query, 1, ['session:b'])[0]?.label ?? -1;
    expect(vectors.nearest(index, query, 1, ['session:b'])[0]?.label).toBe(nearestInB);
    vectors.remove(nearestInB);
    index.remove(nearestInB);
    expect(vectors.nearest(index, query, 1, ['session:b'])[0]?.label).not.toBe(nearestInB);
    expect(vectors.vectorOf(nearestInB)).toBeUndefined();
  });
});

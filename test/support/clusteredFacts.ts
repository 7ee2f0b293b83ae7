import type { NewFact } from '../../src/memory/facts/factStore.js';

// Facts for flooding L4 as users' `remember` calls do: distinct ones, and rewordings that
// compression (not the merge on add) joins with their original.

/** A made-up word for `n`: distinct numbers give words that share few character n-grams. */
const word = (n: number): string => ((n + 1) * 2_654_435_761).toString(36).slice(-7);

/**
 * Fact `i` of a flood in `sessions` sessions: every third one adds a clause to the one before it
 * and is in its session (cosine about 0.88 with the offline embedder: above clusterThreshold,
 * below mergeThreshold), so a compression has clusters to merge as well as facts to drop.
 */
export function floodFact(i: number, sessions: number): NewFact {
  const rewording = i % 3 === 2;
  const topic = rewording ? i - 1 : i;
  const [a, b, c] = [word(topic), word(topic + 100_003), word(topic + 200_017)];
  const text = rewording ? `${a} keeps the ${b} ledger about ${c}, since ${word(topic + 300_007)}.` : `${a} keeps the ${b} ledger about ${c}.`;
  return { text, scope: 'session', sessionId: `s${topic % sessions}`, importance: ((i * 37) % 100) / 100 };
}

// Written by part "facts" of issue 14 ahead of part "tiers", which owns this file: the same
// function with the agreed signature (L4 uses it for its top N and its merges).

/**
 * Importance at time `now`: the base importance halved every `halfLifeMs` since `createdAt`,
 * plus `retrievalBoost` for every time the entry was returned to a context or a search, at
 * most 1. So what is old and unused makes room, and what keeps being used stays.
 */
export function effectiveImportance(
  entry: { importance: number; retrievals: number; createdAt: number },
  now: number,
  options: { halfLifeMs: number; retrievalBoost: number },
): number {
  const age = Math.max(0, now - entry.createdAt);
  return Math.min(1, entry.importance * 0.5 ** (age / options.halfLifeMs) + options.retrievalBoost * entry.retrievals);
}

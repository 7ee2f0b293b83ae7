import type { AgentMemory } from '../../src/memory/index.js';
import type { FactStoreDouble } from './factStoreDouble.js';

/** Tiers by height: an entry may only ever move to a higher one. */
export const tierRank = { L1: 1, L2: 2, L3: 3, L4: 4 } as const;
export type TierRank = (typeof tierRank)[keyof typeof tierRank];

/** Where a Task is in an agent's memory: the highest tier holding it, and how many places hold it (more than one is a duplicate). */
export interface Holding {
  readonly rank: TierRank;
  readonly places: number;
}

/**
 * Every Task an agent's memory holds, by id: its full Task in L1 or L2, an L3 summary naming it,
 * or the facts of the promotion (one batch of summaries) that carried it to L4, which hold it once together.
 */
export function holdings(memory: AgentMemory, facts: FactStoreDouble): Map<string, Holding> {
  const found = new Map<string, Holding>();
  const hold = (id: string, at: TierRank): void => {
    const known = found.get(id);
    found.set(id, { rank: Math.max(known?.rank ?? 1, at) as TierRank, places: (known?.places ?? 0) + 1 });
  };
  for (const entry of memory.l1()) hold(entry.task.id, tierRank.L1);
  for (const entry of memory.l2()) hold(entry.task.id, tierRank.L2);
  for (const entry of memory.l3()) for (const id of entry.taskIds) hold(id, tierRank.L3);
  const promotions = new Map<string, readonly string[]>();
  for (const fact of facts.facts) {
    const metadata = fact.metadata as { promotionId: string; taskIds: string[] };
    promotions.set(metadata.promotionId, metadata.taskIds);
  }
  for (const taskIds of promotions.values()) for (const id of taskIds) hold(id, tierRank.L4);
  return found;
}

import type { StoredOrganisation } from './journal/journal.js';
import type { OrgTree } from './orgTree.js';

/**
 * Puts the `keep` most recently terminated agents of a stored organisation back in memory, with
 * who terminated them; older ones stay in the store only, so a restart on an organisation that
 * spawned thousands of agents holds only its live ones and a bounded window of the rest.
 */
export function restoreRecentlyTerminated(org: OrgTree, stored: StoredOrganisation, keep: number): void {
  if (keep === 0) return;
  const terminated = stored.agents
    .filter((record) => record.status === 'terminated')
    .sort((a, b) => (a.terminatedAt ?? 0) - (b.terminatedAt ?? 0))
    .slice(-keep);
  const kept = new Set(terminated.map((record) => record.id));
  const terminations = new Map(
    stored.terminations.filter((termination) => kept.has(termination.agentId)).map((termination) => [termination.agentId, termination]),
  );
  for (const record of terminated) org.restoreTerminated(record, terminations.get(record.id));
}

import type { Logger } from '../../logger.js';
import type { StoredOrganisation } from '../journal/journal.js';
import type { OrgTree } from './orgTree.js';
import type { PendingAgents } from './pendingAgents.js';
import type { RoleBook } from './roleBook.js';

/** Where a stored organisation goes back in memory. */
export interface RestoreTargets {
  readonly roles: RoleBook;
  readonly org: OrgTree;
  readonly pending: PendingAgents;
  readonly logger: Logger;
  /** How many terminated agents' records come back into memory (`terminatedAgentsInMemory`). */
  readonly keepTerminated: number;
}

/**
 * Puts a stored organisation back in memory: its roles and the records of its active agents at
 * once, then every active agent as pending, oldest first, to be started by the background
 * restore or by its first Task. Nothing is read yet of the agents' conversations and waiting Tasks.
 */
export function restoreOrganisation(stored: StoredOrganisation, { roles, org, pending, logger, keepTerminated }: RestoreTargets): void {
  for (const role of stored.roles) roles.restore(role);
  const byCreation = stored.agents.filter((record) => record.status === 'active').sort((a, b) => a.createdAt - b.createdAt);
  for (const record of byCreation) org.add(record);
  restoreRecentlyTerminated(org, stored, keepTerminated);
  for (const record of byCreation) {
    const role = roles.find(record.roleId);
    if (role === undefined) logger.error({ agentId: record.id, roleId: record.roleId }, 'agent not restored: its role is missing');
    else pending.add(record, role);
  }
}

/**
 * Puts the `keep` most recently terminated agents of a stored organisation back in memory, with
 * who terminated them; older ones stay in the store only, so a restart on an organisation that
 * spawned thousands of agents holds only its live ones and a bounded window of the rest.
 */
function restoreRecentlyTerminated(org: OrgTree, stored: StoredOrganisation, keep: number): void {
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

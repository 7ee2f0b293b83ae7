import { TroupeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ToolRegistry } from '../tools/index.js';
import { withCheckedHandoffs } from './agent/handoffTools.js';
import type { StoredOrganisation } from './journal/journal.js';
import { type RuntimeOptions, rootPrompt } from './runtimeOptions.js';
import type { Society } from './society/society.js';
import type { UserEndpoint } from './userEndpoint.js';

/**
 * A runtime's organisation at its start: the one its data dir kept (roles, agent records and the
 * inbox now; the agents' unfinished work is started in the background afterwards), or a new one,
 * the root role and agent. Rejects when the stored root was terminated, or the root cannot be made.
 */
export async function startOrganisation(
  parts: {
    readonly society: Society;
    readonly user: UserEndpoint;
    readonly logger: Logger;
    readonly tools: ToolRegistry;
    readonly root: RuntimeOptions['root'];
  },
  stored: StoredOrganisation | null,
): Promise<void> {
  const { society, root } = parts;
  if (stored === null) {
    const role = { name: 'root', prompt: root?.prompt ?? rootPrompt, createdBy: 'runtime', handoffs: root?.handoffs };
    const rootRole = await society.addRole(withCheckedHandoffs({ ...role, ...(root?.tools === undefined ? {} : { tools: root.tools }) }, parts.tools));
    await society.spawn({ role: rootRole.id, parent: null, id: 'root' });
    return;
  }
  if (stored.agents.find((agent) => agent.id === 'root')?.status !== 'active') {
    throw new TroupeError('invalid_input', 'the root agent of this data dir was terminated; use a new data dir', { context: { agentId: 'root' } });
  }
  society.restore(stored);
  parts.user.restoreInbox(stored.inbox);
  parts.logger.info({ agents: society.restoring.size, roles: society.roles.list().length }, 'organisation restored');
}

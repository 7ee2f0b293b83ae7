import { TroupeError } from '../../errors.js';
import { AgentIdSchema, type Redactor, parseOrThrow } from '../../task/index.js';
import type { MemoryHub } from '../memory/memoryHub.js';
import { type MemoryView, MemoryQuerySchema } from './memoryQuery.js';
import { memoryView } from './memoryView.js';
import { renamedFields } from '../memory/renamedFields.js';

/**
 * `rt.memory`: checks the agent and the query (a bad one is refused naming its field), then
 * builds the view from the agent's open memory, or from the store for an agent whose memory is
 * not open. An agent the organisation never had is `unknown_agent`; a terminated agent of a
 * runtime without a data dir is `agent_terminated`, its memory having gone with it.
 */
export async function readMemory(
  deps: { readonly hub: MemoryHub; readonly known: (agentId: string) => boolean },
  agentId: string,
  input: unknown,
  redactor: Redactor,
): Promise<MemoryView> {
  const id = parseOrThrow(AgentIdSchema, agentId, 'agentId');
  const query = parseOrThrow(MemoryQuerySchema, input ?? {});
  if (!deps.known(id)) throw new TroupeError('unknown_agent', `no agent "${id}"`, { context: { agentId: id } });
  const reader = await deps.hub.reader(id);
  if (reader === null) {
    throw new TroupeError(
      'agent_terminated',
      `agent "${id}" is terminated, and its memory was kept in memory only: it went with the agent (a data dir keeps it)`,
      {
        context: { agentId: id },
      },
    );
  }
  // The fact store's own limits on a search name its `text`: here it is the query's `search`.
  return renamedFields(() => memoryView(reader.memory, query, reader.source, redactor), { text: 'search' });
}

import { TroupeError } from '../../errors.js';
import type { AgentMemory } from '../../memory/index.js';
import type { Role } from '../../org/index.js';
import type { FactSearchRequest, FoundFact, RememberRequest, RememberedFact } from '../../tools/index.js';
import type { MemoryHub } from './memoryHub.js';
import { renamedFields } from './renamedFields.js';

// What the `remember` and `search_memory` tools do to their own agent's memory: the society's
// side of the tools' port, kept beside the hub they go through.

/** The memory of a live agent (waiting for it to open); `agent_terminated` once it is closed. */
async function ownMemory(hub: MemoryHub, agentId: string): Promise<AgentMemory> {
  const opening = hub.opened(agentId);
  if (opening === undefined) throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated: its memory is closed`, { context: { agentId } });
  return opening;
}

/** Stores the fact in the agent's L4, in its Task's session unless its scope is `agent`, which its role's policy may not allow (`rememberScopes`). */
export async function rememberFact(hub: MemoryHub, request: RememberRequest, role?: Role): Promise<RememberedFact> {
  const scopes = role?.tools?.rememberScopes;
  if (role !== undefined && scopes !== undefined && !scopes.includes(request.scope)) {
    const allowed = scopes.length === 0 ? 'none' : scopes.map((scope) => `"${scope}"`).join(', ');
    const message = `scope: role "${role.name}" may not remember with scope "${request.scope}" (its policy's rememberScopes allows ${allowed})`;
    throw new TroupeError('invalid_input', message, { context: { agentId: request.agentId } });
  }
  const memory = await ownMemory(hub, request.agentId);
  const { fact, merged } = await renamedFields(
    () =>
      memory.remember({
        text: request.text,
        scope: request.scope,
        sessionId: request.scope === 'session' ? request.sessionId : null,
        importance: request.importance,
      }),
    { 'fact.text': 'text', 'fact.importance': 'importance', 'fact.scope': 'scope' },
  );
  return { id: fact.id, text: fact.text, scope: fact.scope, importance: fact.importance, merged };
}

/**
 * The agent's facts of the Task's session and its agent-scope ones closest to the query, those
 * less related than `memory.minRelevance` left out as a turn's context leaves them (each found
 * counts a retrieval).
 */
export async function searchOwnFacts(hub: MemoryHub, request: FactSearchRequest): Promise<FoundFact[]> {
  const memory = await ownMemory(hub, request.agentId);
  const filter = { sessionId: request.sessionId, minSimilarity: hub.minRelevance };
  const hits = await renamedFields(() => memory.search(request.query, request.k, filter), { text: 'query' });
  return hits.map(({ fact, similarity, channels, node }) => ({
    id: fact.id,
    text: fact.text,
    scope: fact.scope,
    importance: fact.importance,
    similarity,
    channels,
    ...(node === undefined ? {} : { node }),
    ...(fact.metadata === undefined ? {} : { metadata: fact.metadata }),
  }));
}

import { McpError, ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describeError } from '../../errors.js';
import { MemoryTierSchema, type Runtime } from '../../runtime/index.js';
import type { Redactor } from '../../task/index.js';
import { safeRoleNames } from '../readRoutes.js';

/** Agents whose memories `resources/list` names: the first page of live ones (any agent's memory can still be read by its URI). */
const listedAgents = 100;

const json = 'application/json';

/** `value` as the one JSON content of a resource at `uri`, redacted as written; a failure as a JSON-RPC error naming it. */
async function read(uri: URL, redactor: Redactor, value: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    return { contents: [{ uri: uri.href, mimeType: json, text: redactor.json(JSON.stringify(await value())) }] };
  } catch (error) {
    throw new McpError(ErrorCode.InvalidParams, `${uri.href}: ${redactor.text(describeError(error))}`);
  }
}

/** A template's variable as one string (a URI template may give a list). */
const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

/**
 * The society's resources (docs/mcp-server.md): `troupe://org` (roles and the first page of
 * agents), `troupe://agents/{agentId}/memory` (the counts of each tier) and
 * `troupe://agents/{agentId}/memory/{tier}` (the newest page of a tier), as `rt.memory` answers.
 */
export function registerSocietyResources(server: McpServer, runtime: Runtime, redactor: Redactor): void {
  server.registerResource(
    'organisation',
    'troupe://org',
    { description: "The society's roles and its first 100 agents (list_agents pages through them all)", mimeType: json },
    (uri) =>
      read(uri, redactor, async () => {
        const page = runtime.agentPage({ limit: listedAgents });
        const roles = runtime.roles().map(({ id, name, createdBy, createdAt }) => ({ id, name, createdBy, createdAt }));
        return { roles, agents: { ...page, agents: page.agents.map(safeRoleNames(redactor)) } };
      }),
  );
  const listMemories = (suffix: string, what: string) => () => ({
    resources: runtime.agentPage({ status: 'active', limit: listedAgents }).agents.map((agent) => ({
      uri: `troupe://agents/${agent.id}/memory${suffix}`,
      name: `${agent.id} ${what}`,
      mimeType: json,
    })),
  });
  server.registerResource(
    'agent-memory',
    new ResourceTemplate('troupe://agents/{agentId}/memory', { list: listMemories('', 'memory') }),
    { description: "How many entries each tier of an agent's memory holds (L1 recent, L2 important, L3 summaries, L4 facts)", mimeType: json },
    (uri, { agentId }) => read(uri, redactor, () => runtime.memory(one(agentId), {}, { redactor })),
  );
  server.registerResource(
    'agent-memory-tier',
    new ResourceTemplate('troupe://agents/{agentId}/memory/{tier}', { list: undefined }),
    {
      description: "The first page of one tier of an agent's memory (tier: l1, l2, l3 or l4), redacted and cut as GET /api/agents/{id}/memory?tier= is",
      mimeType: json,
    },
    (uri, { agentId, tier }) =>
      read(uri, redactor, async () => {
        const checked = MemoryTierSchema.safeParse(one(tier));
        if (!checked.success) throw new Error(`tier must be l1, l2, l3 or l4, got "${one(tier)}"`);
        return runtime.memory(one(agentId), { tier: checked.data }, { redactor });
      }),
  );
}

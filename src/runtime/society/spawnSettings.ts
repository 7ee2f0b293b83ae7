import { TroupeError } from '../../errors.js';
import type { ModelClient } from '../../llm/index.js';
import type { AgentRecord, Role } from '../../org/index.js';
import { type AgentSettings, AgentSettingsSchema, inheritSettings, intersectPolicies, parseOrThrow } from '../../task/index.js';

/** What a spawn looks its new agent's parent up in. */
export interface ParentLookup {
  record(agentId: string): AgentRecord | undefined;
  readonly roles: { find(idOrName: string): Role | undefined };
}

/**
 * A new agent's settings (seed 003): its parent's model, limits, skills and tool policy (the
 * parent's role's and what the parent itself was held to, both at once), each unless `overrides`
 * says otherwise. A model name the runtime was not given is refused (`invalid_input`).
 * Undefined when there is nothing to keep (the runtime's defaults).
 */
export function spawnSettings(
  lookup: ParentLookup,
  parent: string | null,
  overrides: AgentSettings | undefined,
  models: ReadonlyMap<string, ModelClient> | undefined,
): AgentSettings | undefined {
  const record = parent === null ? undefined : lookup.record(parent);
  let inherited: AgentSettings | undefined;
  if (record !== undefined) {
    const { tools: _own, ...rest } = record.settings ?? {};
    const tools = intersectPolicies(lookup.roles.find(record.roleId)?.tools, record.settings?.tools);
    inherited = tools === undefined ? rest : { ...rest, tools };
  }
  const settings = inheritSettings(inherited, overrides);
  if (settings.model !== undefined && models?.has(settings.model) !== true) {
    const known = [...(models?.keys() ?? [])].join(', ') || 'none';
    throw new TroupeError('invalid_input', `no model named "${settings.model}" (models given to createRuntime: ${known})`);
  }
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** What a spawn from code may override, checked (unknown keys and bad values refused, naming them); undefined when it overrides nothing. */
export function spawnOverrides(input: Readonly<Record<string, unknown>>): AgentSettings | undefined {
  const { role: _role, parent: _parent, ...overrides } = input;
  return Object.keys(overrides).length === 0 ? undefined : parseOrThrow(AgentSettingsSchema, overrides, 'spawn');
}

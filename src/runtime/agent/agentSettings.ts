import type { ModelClient } from '../../llm/index.js';
import type { Logger } from '../../logger.js';
import type { AgentRecord, Role } from '../../org/index.js';
import { type AgentLimits, type AgentSettings, type ToolPolicy, intersectPolicies } from '../../task/index.js';
import type { RuntimeConfig } from '../config/config.js';
import { type HandoffTool, handoffTools } from './handoffTools.js';

/** An agent's limits: its settings' where they say, the runtime's elsewhere. */
export type ResolvedLimits = Required<AgentLimits>;

/** What an agent runs with, from its record's settings (inherited at spawn), its role and the runtime. */
export interface ResolvedSettings {
  /** Null when its settings name a model the runtime was not given (each turn then fails, saying so). */
  readonly model: ModelClient | null;
  readonly limits: ResolvedLimits;
  /** Its role's policy and the one it inherited, both at once. */
  readonly tools: ToolPolicy | undefined;
  readonly handoffs: readonly HandoffTool[];
  /** The skills it may use (undefined: any); what the skills layer reads. */
  readonly skills: readonly string[] | undefined;
  readonly settings: AgentSettings;
}

export interface SettingsSources {
  readonly model: ModelClient;
  readonly models?: ReadonlyMap<string, ModelClient> | undefined;
  readonly config: RuntimeConfig;
  readonly logger: Logger;
}

export function resolveSettings(sources: SettingsSources, record: AgentRecord, role: Role): ResolvedSettings {
  const settings = record.settings ?? {};
  const { config } = sources;
  const limits: ResolvedLimits = {
    maxSteps: settings.limits?.maxSteps ?? config.maxSteps,
    maxTaskTokens: settings.limits?.maxTaskTokens ?? config.maxTaskTokens,
    maxTaskMs: settings.limits?.maxTaskMs ?? config.maxTaskMs,
    maxToolCallsPerReply: settings.limits?.maxToolCallsPerReply ?? config.maxToolCallsPerReply,
  };
  const model = settings.model === undefined ? sources.model : (sources.models?.get(settings.model) ?? null);
  let handoffs: readonly HandoffTool[] = [];
  try {
    handoffs = handoffTools(role.handoffs, () => false);
  } catch (error) {
    // Checked when the role was made; a role stored by another troupe may still break a rule.
    sources.logger.error({ agentId: record.id, role: role.name, error: String(error) }, 'handoff targets of the role ignored');
  }
  return { model, limits, tools: intersectPolicies(role.tools, settings.tools), handoffs, skills: settings.skills, settings };
}

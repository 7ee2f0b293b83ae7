import { ValidationError } from '../errors.js';
import { ContextBudgetSchema } from '../context/contextBudget.js';
import { RuntimeConfigSchema } from '../runtime/config.js';
import type { CliEnv } from './cliIo.js';

/** The runtime's limits the CLI takes from the environment, each variable beside its setting. */
export const limitVariables = {
  TROUPE_MAILBOX_LIMIT: 'mailboxLimit',
  TROUPE_MAX_STEPS: 'maxSteps',
  TROUPE_MAX_LIVE_AGENTS: 'maxLiveAgents',
  TROUPE_MAX_CHILDREN_PER_AGENT: 'maxChildrenPerAgent',
  TROUPE_MAX_SPAWN_DEPTH: 'maxSpawnDepth',
  TROUPE_MAX_CONCURRENT_MODEL_CALLS: 'maxConcurrentModelCalls',
  TROUPE_MAX_QUEUED_MODEL_CALLS: 'maxQueuedModelCalls',
  TROUPE_MAX_TASK_TOKENS: 'maxTaskTokens',
  TROUPE_MAX_TASK_MS: 'maxTaskMs',
  TROUPE_MAX_LANES_PER_AGENT: 'maxLanesPerAgent',
  TROUPE_SESSIONS_IN_MEMORY_PER_AGENT: 'sessionsInMemoryPerAgent',
  TROUPE_RESTORE_SLICE_TASKS: 'restoreSliceTasks',
  TROUPE_MESSAGE_LOG_LIMIT: 'messageLogLimit',
  TROUPE_TERMINATED_AGENTS_KEPT: 'terminatedAgentsKept',
} as const;

type LimitSetting = (typeof limitVariables)[keyof typeof limitVariables];

/**
 * The limits set in the environment (unset ones keep the runtime's defaults), checked with the
 * runtime's own schema; a value that is not a whole number the setting allows is refused with a
 * ValidationError naming the variable.
 */
export function readLimits(env: CliEnv): Partial<Record<LimitSetting, number>> {
  const limits: Partial<Record<LimitSetting, number>> = {};
  for (const [variable, setting] of Object.entries(limitVariables) as [keyof typeof limitVariables, LimitSetting][]) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^\d+$/.test(value)) throw new ValidationError(variable, `must be a whole number for ${setting}; got "${value}"`);
    const parsed = RuntimeConfigSchema.shape[setting].safeParse(Number(value));
    if (!parsed.success) {
      // zod says which bound was crossed ("Too small: expected number to be >0").
      const reason = parsed.error.issues[0]?.message ?? 'invalid';
      throw new ValidationError(variable, `must be a whole number allowed for ${setting} (${reason}); got "${value}"`);
    }
    limits[setting] = parsed.data;
  }
  return limits;
}

/** `TROUPE_CONTEXT_TOKENS`: the token budget of each turn's context, checked by the budget's own schema; undefined when unset. */
export function readContextTokens(env: CliEnv): number | undefined {
  const value = env['TROUPE_CONTEXT_TOKENS']?.trim();
  if (value === undefined || value === '') return undefined;
  const parsed = ContextBudgetSchema.shape.tokens.safeParse(/^\d+$/.test(value) ? Number(value) : value);
  if (!parsed.success) throw new ValidationError('TROUPE_CONTEXT_TOKENS', `must be a whole number of tokens from 64 to 10000000; got "${value}"`);
  return parsed.data;
}

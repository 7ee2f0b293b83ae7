import { ValidationError } from '../errors.js';
import { ContextBudgetSchema } from '../context/contextBudget.js';
import { FactLimitsSchema } from '../memory/facts/factLimits.js';
import { RuntimeConfigSchema } from '../runtime/config/config.js';
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
  TROUPE_REAP_IDLE_CHILDREN_AFTER_MS: 'reapIdleChildrenAfterMs',
  TROUPE_MAX_ARTIFACT_BYTES: 'maxArtifactBytes',
  TROUPE_MAX_ARTIFACTS_PER_TASK: 'maxArtifactsPerTask',
  TROUPE_MAX_ARTIFACT_STORE_BYTES: 'maxArtifactStoreBytes',
  TROUPE_ARTIFACT_PREVIEW_CHARS: 'artifactPreviewChars',
} as const;

type LimitSetting = (typeof limitVariables)[keyof typeof limitVariables];

/**
 * The limits set in the environment (unset ones keep the runtime's defaults), checked with the
 * runtime's own schema; a value that is not a whole number the setting allows is refused with a
 * ValidationError naming the variable.
 */
export function readLimits(env: CliEnv): Partial<Record<LimitSetting, number>> {
  const limits = wholeNumbers(env, limitVariables);
  for (const [variable, setting] of Object.entries(limitVariables) as [keyof typeof limitVariables, LimitSetting][]) {
    const value = limits[setting];
    if (value === undefined) continue;
    const parsed = RuntimeConfigSchema.shape[setting].safeParse(value);
    // zod says which bound was crossed ("Too small: expected number to be >0").
    if (!parsed.success) throw outOfRange(env, variable, setting, parsed.error.issues[0]?.message);
  }
  return limits;
}

/** The whole numbers set in `env` for `variables`, by setting; any other value is a ValidationError naming its variable. */
function wholeNumbers<S extends string>(env: CliEnv, variables: Readonly<Record<string, S>>): Partial<Record<S, number>> {
  const numbers: Partial<Record<S, number>> = {};
  for (const [variable, setting] of Object.entries(variables)) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^\d+$/.test(value)) throw new ValidationError(variable, `must be a whole number for ${setting}; got "${value}"`);
    numbers[setting] = Number(value);
  }
  return numbers;
}

function outOfRange(env: CliEnv, variable: string, setting: string, reason: string | undefined): ValidationError {
  return new ValidationError(variable, `must be a whole number allowed for ${setting} (${reason ?? 'invalid'}); got "${env[variable]?.trim() ?? ''}"`);
}

/** The size of each agent's L4 and the adds that may wait for room in it, which the CLI takes from the environment, each variable beside its setting (`memory.facts`). */
const factLimitVariables = {
  TROUPE_L4_COMPRESS_ABOVE: 'compressAbove',
  TROUPE_L4_KEEP_TOP_N: 'keepTopN',
  TROUPE_L4_MAX_WAITING_ADDS: 'maxWaitingAdds',
} as const;

type FactLimitSetting = (typeof factLimitVariables)[keyof typeof factLimitVariables];

/** keepTopN's share of compressAbove when only compressAbove is set: what a compression keeps of what made it due. */
const keptShare = 0.8;

/**
 * The L4 limits set in the environment, checked with L4's own schema; with only
 * `TROUPE_L4_COMPRESS_ABOVE`, `keepTopN` is 80% of it. A value that is not a whole number, or a
 * pair L4 refuses (`keepTopN` above `compressAbove`), is a ValidationError naming the variable.
 */
export function readFactLimits(env: CliEnv): Partial<Record<FactLimitSetting, number>> {
  const limits = wholeNumbers(env, factLimitVariables);
  if (limits.compressAbove !== undefined && limits.keepTopN === undefined) limits.keepTopN = Math.max(1, Math.floor(limits.compressAbove * keptShare));
  const parsed = FactLimitsSchema.safeParse(limits);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const setting = issue?.path[0];
    const variable = Object.entries(factLimitVariables).find(([, name]) => name === setting)?.[0] ?? 'TROUPE_L4_COMPRESS_ABOVE';
    throw outOfRange(env, variable, String(setting), issue?.message);
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

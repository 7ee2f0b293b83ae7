import type { z } from 'zod';
import { ValidationError } from '../errors.js';
import { ContextBudgetSchema } from '../context/contextBudget.js';
import { FactLimitsSchema } from '../memory/facts/factLimits.js';
import { RoutingSettingsSchema, RuntimeConfigSchema } from '../runtime/config/config.js';
import { parseOrThrow } from '../task/index.js';
import type { CliEnv } from './cliIo.js';

/** A runtime setting's variable: `maxLiveAgents` → `TROUPE_MAX_LIVE_AGENTS`. */
const variableOf = (setting: string): string => `TROUPE_${setting.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;

type RuntimeSetting = keyof typeof RuntimeConfigSchema.shape;
type LimitSetting = Exclude<RuntimeSetting, 'routing'>;
type RoutingSettings = z.input<typeof RoutingSettingsSchema>;

/** Every runtime setting that is a whole number (each limit of `createRuntime`, the compactor's too): the ones the CLI reads, each from its variable. */
const defaults = RuntimeConfigSchema.parse({}) as Record<string, unknown>;
export const limitVariables: Readonly<Record<string, LimitSetting>> = Object.fromEntries(
  (Object.keys(RuntimeConfigSchema.shape) as RuntimeSetting[])
    .filter((setting): setting is LimitSetting => typeof defaults[setting] === 'number' || defaults[setting] === null)
    .map((setting) => [variableOf(setting), setting]),
);

/**
 * The limits set in the environment (unset ones keep the runtime's defaults), checked with the
 * runtime's own schema; a value that is not a whole number the setting allows is refused with a
 * ValidationError naming the variable.
 */
export function readLimits(env: CliEnv): Partial<Record<LimitSetting, number>> & { routing?: RoutingSettings } {
  const limits: Partial<Record<LimitSetting, number>> & { routing?: RoutingSettings } = wholeNumbers(env, limitVariables);
  const routing = readRouting(env);
  if (routing !== undefined) limits.routing = routing;
  for (const [variable, setting] of Object.entries(limitVariables)) {
    const value = limits[setting];
    if (value === undefined) continue;
    const parsed = RuntimeConfigSchema.shape[setting].safeParse(value);
    // zod says which bound was crossed ("Too small: expected number to be >0").
    if (!parsed.success) throw outOfRange(env, variable, setting, parsed.error.issues[0]?.message);
  }
  return limits;
}

/**
 * The router's options from `TROUPE_ROUTING`, a JSON object as `createRuntime({ routing })` takes
 * it (`{"threshold": 0.2, "askModel": false}`); what is not JSON, or an option the router refuses,
 * is a ValidationError naming the variable (and the option).
 */
function readRouting(env: CliEnv): RoutingSettings | undefined {
  const text = env['TROUPE_ROUTING']?.trim();
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError('TROUPE_ROUTING', `must be a JSON object of the router's options: ${(error as Error).message}`);
  }
  parseOrThrow(RoutingSettingsSchema, value, 'TROUPE_ROUTING');
  return value as RoutingSettings;
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

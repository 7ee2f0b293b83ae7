import { type LogLevel, LogLevelSchema } from '../logger.js';
import { type SkillLimits, SkillLimitsSchema } from '../skills/index.js';
import { parseOrThrow } from '../task/index.js';
import { GuardrailsSchema } from './agent/interceptors/guardrail.js';
import { InterceptorsSchema } from './agent/interceptors/interceptor.js';
import { TracingOptionsSchema } from './agent/tracing.js';
import { type RuntimeConfig, RuntimeConfigSchema } from './config/config.js';
import { type MemorySettings, memorySettings as memorySettingsOf } from './memory/memoryOptions.js';
import type { RuntimeOptions } from './runtimeOptions.js';

/** The settings among `createRuntime`'s options, checked before anything is opened: a bad one is refused with a ValidationError naming it. */
export function runtimeSettings(options: RuntimeOptions): {
  config: RuntimeConfig;
  memorySettings: MemorySettings;
  level: LogLevel | undefined;
  skillLimits: SkillLimits;
} {
  // Everything but the parts given as objects (model, bus, clock, logger, …) is the config.
  const {
    model: _m,
    retry: _r,
    bus: _b,
    nodes: _nodes,
    clock: _c,
    ids: _i,
    logger: _l,
    logLevel,
    tools: _t,
    inspect: _n,
    root: _o,
    dataDir: _d,
    secrets: _s,
    memory,
    skills: _skills,
    skillLimits,
    interceptors,
    guardrails,
    tracing,
    ...settings
  } = options;
  // The hooks themselves reach the agents as given; here they are only checked.
  parseOrThrow(InterceptorsSchema, interceptors ?? [], 'interceptors');
  parseOrThrow(GuardrailsSchema, guardrails ?? [], 'guardrails');
  parseOrThrow(TracingOptionsSchema, tracing ?? {}, 'tracing');
  return {
    config: parseOrThrow(RuntimeConfigSchema, settings),
    memorySettings: memorySettingsOf(memory),
    level: logLevel === undefined ? undefined : parseOrThrow(LogLevelSchema, logLevel, 'logLevel'),
    skillLimits: parseOrThrow(SkillLimitsSchema, skillLimits ?? {}, 'skillLimits'),
  };
}

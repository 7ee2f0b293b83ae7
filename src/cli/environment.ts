import { delimiter, resolve } from 'node:path';
import type { NatsTransportOptions } from '../bus/index.js';
import { ValidationError } from '../errors.js';
import { type ModelClient, embeddingsFromEnv, modelFromEnv } from '../llm/index.js';
import { type LogLevel, LogLevelSchema, logLevels } from '../logger.js';
import type { CliEnv } from './cliIo.js';
import type { MemoryOptions } from '../runtime/index.js';
import { readContextTokens, readFactLimits, readLimits } from './limitSettings.js';

// The CLI's reading of its environment, in one place: the library reads none of it, so these
// are what turn `TROUPE_*` variables into the options `createRuntime` and the server are given.
// A malformed value throws a ValidationError naming the variable (exit code 2).

/** A variable's value, trimmed; undefined when unset or blank. */
function valueOf(env: CliEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The organisation's directory for every command: null with `--memory`, else `--data-dir`,
 * else `TROUPE_DATA_DIR`, else `./.troupe`; made absolute, so logs and messages name it fully.
 */
export function resolveDataDir(option: string | undefined, memory: false, env: CliEnv): string;
export function resolveDataDir(option: string | undefined, memory: boolean, env: CliEnv): string | null;
export function resolveDataDir(option: string | undefined, memory: boolean, env: CliEnv): string | null {
  if (memory) return null;
  return resolve(option ?? valueOf(env, 'TROUPE_DATA_DIR') ?? '.troupe');
}

/** `TROUPE_LOG_LEVEL`, or `fallback` when unset; a value that is not a level is refused, not ignored. */
export function readLogLevel(env: CliEnv, fallback: LogLevel): LogLevel {
  const value = valueOf(env, 'TROUPE_LOG_LEVEL');
  if (value === undefined) return fallback;
  const parsed = LogLevelSchema.safeParse(value);
  if (!parsed.success) throw new ValidationError('TROUPE_LOG_LEVEL', `must be one of ${logLevels.join(', ')}; got "${value}"`);
  return parsed.data;
}

/** `TROUPE_TOKEN`: the bearer token `serve` requires, or undefined for no auth. */
export function readToken(env: CliEnv): string | undefined {
  return valueOf(env, 'TROUPE_TOKEN');
}

/**
 * Values nothing troupe prints, logs or serves may contain: the model's API key, the server's
 * token, and any others listed in `TROUPE_SECRETS` (comma-separated).
 */
export function readSecrets(env: CliEnv): string[] {
  const listed = (valueOf(env, 'TROUPE_SECRETS') ?? '').split(',').map((secret) => secret.trim());
  const nats = [valueOf(env, 'TROUPE_NATS_TOKEN'), valueOf(env, 'TROUPE_NATS_PASSWORD')];
  return [valueOf(env, 'OPENAI_API_KEY'), readToken(env), ...nats, ...listed].filter((secret): secret is string => secret !== undefined && secret !== '');
}

/**
 * How `serve --nats` and `node --nats` log in to NATS and check its certificate:
 * `TROUPE_NATS_TOKEN`, or `TROUPE_NATS_USER` and `TROUPE_NATS_PASSWORD`; `TROUPE_NATS_CA` (the
 * authority's PEM file; TLS on), `TROUPE_NATS_CERT` and `TROUPE_NATS_KEY` (a client
 * certificate, for mutual TLS). The transport checks the combination.
 */
export function readNatsLogin(env: CliEnv): Pick<NatsTransportOptions, 'token' | 'user' | 'password' | 'tls'> {
  const [token, user, password] = ['TROUPE_NATS_TOKEN', 'TROUPE_NATS_USER', 'TROUPE_NATS_PASSWORD'].map((name) => valueOf(env, name));
  const [caFile, certFile, keyFile] = ['TROUPE_NATS_CA', 'TROUPE_NATS_CERT', 'TROUPE_NATS_KEY'].map((name) => valueOf(env, name));
  const tls = caFile === undefined && certFile === undefined && keyFile === undefined ? undefined : { caFile, certFile, keyFile };
  return Object.fromEntries(Object.entries({ token, user, password, tls }).filter(([, value]) => value !== undefined));
}

/**
 * The durable mailboxes' settings for `--durable-mailboxes`: `TROUPE_NATS_ACK_WAIT`, the seconds
 * a node may hold a Task unacknowledged before JetStream hands it to another (give every process
 * of the society the same). Throws a ValidationError naming the variable.
 */
export function readDurableMailboxes(env: CliEnv): { readonly ackWaitMs?: number } {
  const value = valueOf(env, 'TROUPE_NATS_ACK_WAIT');
  if (value === undefined) return {};
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 86_400) {
    throw new ValidationError('TROUPE_NATS_ACK_WAIT', `must be a number of seconds from 1 to 86400; got "${value}"`);
  }
  return { ackWaitMs: Math.round(seconds * 1000) };
}

/**
 * The skill folders of `--skills` (each a skill, or a folder of them) followed by those of
 * `TROUPE_SKILLS` (separated like PATH, by `:`; `;` on Windows).
 */
export function readSkillDirs(flags: readonly string[] | undefined, env: CliEnv): string[] {
  const listed = (valueOf(env, 'TROUPE_SKILLS') ?? '').split(delimiter).map((dir) => dir.trim());
  return [...(flags ?? []), ...listed.filter((dir) => dir !== '')];
}

/** What a command that starts a runtime (`run`, `serve`) reads from its flags and environment. */
export interface RuntimeSettings {
  readonly logLevel: LogLevel;
  readonly model: ModelClient;
  readonly dataDir: string | null;
  /** Limits set by `TROUPE_*` variables (see `limitVariables`); the rest keep their defaults. */
  readonly limits: ReturnType<typeof readLimits>;
  /** Agents' memory: the embedder from the environment (see `embeddingsFromEnv`). */
  readonly memory: MemoryOptions;
  /** Skill folders from `--skills` and `TROUPE_SKILLS` (see `readSkillDirs`). */
  readonly skills: readonly string[];
}

/**
 * The runtime's settings from `--data-dir`/`--memory` and the environment: the level from
 * `TROUPE_LOG_LEVEL` (else `defaultLevel`), the model from `OPENAI_*`/`TROUPE_MODEL*` (see
 * `modelFromEnv`), the data dir from `resolveDataDir`. Throws a ValidationError naming the
 * first malformed variable.
 */
export function readRuntimeSettings(
  flags: { readonly dataDir?: string | undefined; readonly memory: boolean; readonly skills?: readonly string[] | undefined },
  env: CliEnv,
  defaultLevel: LogLevel,
): RuntimeSettings {
  return {
    logLevel: readLogLevel(env, defaultLevel),
    model: modelFromEnv(env),
    dataDir: resolveDataDir(flags.dataDir, flags.memory, env),
    limits: readLimits(env),
    memory: memoryFromEnv(env),
    skills: readSkillDirs(flags.skills, env),
  };
}

/** The embedder (see `embeddingsFromEnv`), the context's token budget (`TROUPE_CONTEXT_TOKENS`) and L4's size (`TROUPE_L4_*`). */
export function memoryFromEnv(env: CliEnv): MemoryOptions {
  const embedder = embeddingsFromEnv(env);
  const tokens = readContextTokens(env);
  const facts = readFactLimits(env);
  return {
    ...(embedder === undefined ? {} : { embedder }),
    ...(tokens === undefined ? {} : { context: { tokens } }),
    ...(Object.keys(facts).length === 0 ? {} : { facts }),
  };
}

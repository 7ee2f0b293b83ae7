import type { LogLevel } from '../logger.js';
import { Redactor } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readRuntimeSettings, readSecrets } from './environment.js';
import type { ExitCode } from './exitCodes.js';

/** What a command that starts a runtime reads before it does: its settings, and the secrets every output of it redacts. */
export interface CommandSettings {
  readonly settings: RuntimeSettings;
  readonly secrets: readonly string[];
  readonly redactor: Redactor;
}

/**
 * The settings of `troupe run`, `serve`, `mcp` or `node` from its flags and environment (see
 * `readRuntimeSettings`), with the environment's secrets and `extraSecrets` (a NATS URL's
 * password); or, for a malformed setting, the exit code once the error naming it is written:
 * there is no logger yet, since its level is one of the settings.
 */
export function readCommandSettings(
  flags: Parameters<typeof readRuntimeSettings>[0],
  io: Pick<CliIo, 'env' | 'stderr'>,
  defaultLevel: LogLevel,
  extraSecrets: readonly string[] = [],
): CommandSettings | ExitCode {
  let settings: RuntimeSettings;
  try {
    settings = readRuntimeSettings(flags, io.env, defaultLevel);
  } catch (error) {
    return reportFailure(io, error, 'bad settings in the environment');
  }
  const secrets = [...readSecrets(io.env), ...extraSecrets];
  return { settings, secrets, redactor: new Redactor(secrets) };
}

import { pino } from 'pino';
import pretty from 'pino-pretty';
import { type LogLevel, type Logger, createLogger, logLevelFromEnv } from '../logger.js';

/**
 * The logger of `troupe serve`: pino JSON lines on stderr (for collectors), or the same
 * entries pretty-printed when stderr is a terminal. `TROUPE_LOG_LEVEL` sets the level (info by default).
 */
export function createServeLogger(env: NodeJS.ProcessEnv, stderr: { readonly isTTY?: boolean }): Logger {
  const level: LogLevel = logLevelFromEnv(env['TROUPE_LOG_LEVEL']) ?? 'info';
  if (stderr.isTTY !== true) return createLogger(level);
  return pino({ level, base: { name: 'troupe' } }, pretty({ destination: 2, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' }));
}

import { pino } from 'pino';
import pretty from 'pino-pretty';
import { type LogLevel, type Logger, createLogger } from '../logger.js';

/**
 * The logger of `troupe serve`: pino JSON lines on stderr (for collectors), or the same
 * entries pretty-printed when stderr is a terminal.
 */
export function createServeLogger(level: LogLevel, stderr: { readonly isTTY?: boolean }): Logger {
  if (stderr.isTTY !== true || level === 'silent') return createLogger(level);
  return pino(
    { level, base: { name: 'troupe' } },
    pretty({ destination: 2, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' }),
  );
}

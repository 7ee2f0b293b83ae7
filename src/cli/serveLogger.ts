import { pino } from 'pino';
import pretty from 'pino-pretty';
import { type LogLevel, type Logger, createLogger } from '../logger.js';
import type { CliOutput } from './cliIo.js';

/**
 * The logger of `troupe serve`: pino JSON lines on stderr (for collectors), or the same
 * entries pretty-printed when stderr is a terminal. Every line goes through `stderr.write`,
 * which the CLI redacts.
 */
export function createServeLogger(level: LogLevel, stderr: CliOutput): Logger {
  if (stderr.isTTY !== true || level === 'silent') return createLogger(level, stderr);
  const prettyLine = pretty.prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' });
  return pino({ level, base: { name: 'troupe' } }, { write: (line: string) => stderr.write(prettyLine(line)) });
}

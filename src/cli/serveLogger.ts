import { prettyFactory } from 'pino-pretty';
import { type LogLevel, type Logger, createLogger } from '../logger.js';
import type { CliOutput } from './cliIo.js';

/**
 * The logger of `troupe serve`: pino JSON lines on the command's stderr (for collectors), or
 * the same entries pretty-printed when that is a terminal. Written through `stderr`, not to
 * file descriptor 2, so a host running the command in its own process (a test) reads them too.
 */
export function createServeLogger(level: LogLevel, stderr: CliOutput): Logger {
  if (stderr.isTTY !== true) return createLogger(level, (line) => stderr.write(line));
  const pretty = prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' });
  return createLogger(level, (line) => stderr.write(pretty(line)));
}

import { type LogLevel, type Logger, createLogger } from '../logger.js';

/**
 * The logger of `troupe run`: pino JSON lines, each handed to `writeLine` (without its newline)
 * instead of straight to stderr, so that on a terminal they are printed above the status line
 * rather than into it.
 */
export function createRunLogger(level: LogLevel, writeLine: (line: string) => void): Logger {
  return createLogger(level, { write: (line: string) => writeLine(line.trimEnd()) });
}

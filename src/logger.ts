import { pino } from 'pino';
import { z } from 'zod';

/** The logging troupe needs; pino satisfies it, and tests can pass a recorder. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /**
   * Whether a line at `level` would be written (pino has it); absent: every level is. Lets a
   * caller skip building a line nobody reads, such as the HTTP server's line per request.
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const LogLevelSchema = z.enum(logLevels);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/** Writes nothing: what troupe logs to when used as a library and given no logger. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  isLevelEnabled: () => false,
});

/** Whether `logger` writes lines at `level`: a logger that cannot say writes them all. */
export function logsAt(logger: Logger, level: LogLevel): boolean {
  return logger.isLevelEnabled?.(level) ?? true;
}

/**
 * A pino logger writing JSON lines to stderr, so stdout stays free for program output, or to
 * `destination` (the CLI's stderr, which redacts every line); `silent` gives `silentLogger`,
 * which does not even open stderr.
 */
export function createLogger(level: LogLevel = 'info', destination?: { write(line: string): unknown }): Logger {
  if (level === 'silent') return silentLogger;
  return pino({ level, base: { name: 'troupe' } }, destination ?? pino.destination({ fd: 2, sync: true }));
}

/** Keeps every entry in memory; for tests and for embedding troupe where logs are collected. */
export class MemoryLogger implements Logger {
  readonly entries: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields: Record<string, unknown> }[] = [];
  debug(fields: Record<string, unknown>, message: string): void {
    this.entries.push({ level: 'debug', message, fields });
  }
  info(fields: Record<string, unknown>, message: string): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(fields: Record<string, unknown>, message: string): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(fields: Record<string, unknown>, message: string): void {
    this.entries.push({ level: 'error', message, fields });
  }
}

import { pino } from 'pino';

/** The logging troupe needs; pino satisfies it, and tests can pass a recorder. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** The level named by `TROUPE_LOG_LEVEL`, or undefined when unset or not a level. */
export function logLevelFromEnv(value: string | undefined): LogLevel | undefined {
  return (logLevels as readonly string[]).includes(value ?? '') ? (value as LogLevel) : undefined;
}

/** A pino logger writing JSON lines to stderr, so stdout stays free for program output. */
export function createLogger(level: LogLevel = 'info'): Logger {
  return pino({ level, base: { name: 'troupe' } }, pino.destination({ fd: 2, sync: true }));
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

import { type LogLevel, MemoryLogger, logLevels } from '../../src/logger.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * A MemoryLogger that writes from `level` up and says so through `isLevelEnabled`, as pino does.
 * A line at a level it does not write is not kept, but its message is in `unwritten`: a caller
 * that checked the level first never built it.
 */
export class LevelledMemoryLogger extends MemoryLogger {
  readonly unwritten: string[] = [];

  constructor(readonly level: Exclude<LogLevel, 'silent'>) {
    super();
  }

  isLevelEnabled(level: LogLevel): boolean {
    return logLevels.indexOf(level) >= logLevels.indexOf(this.level);
  }

  override debug(fields: Record<string, unknown>, message: string): void {
    this.#line('debug', fields, message);
  }

  override info(fields: Record<string, unknown>, message: string): void {
    this.#line('info', fields, message);
  }

  override warn(fields: Record<string, unknown>, message: string): void {
    this.#line('warn', fields, message);
  }

  override error(fields: Record<string, unknown>, message: string): void {
    this.#line('error', fields, message);
  }

  #line(level: Level, fields: Record<string, unknown>, message: string): void {
    if (this.isLevelEnabled(level)) this.entries.push({ level, message, fields });
    else this.unwritten.push(message);
  }
}

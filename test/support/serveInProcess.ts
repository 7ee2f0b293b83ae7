import { PassThrough } from 'node:stream';
import type { ExitCode } from '../../src/cli/exitCodes.js';
import { type ServeOptions, serveCommand } from '../../src/cli/serve.js';
import { ServeOutput } from './serveOutput.js';

/** `troupe serve`'s flags as the CLI gives them by default, on any free port, memory only. */
export function serveOptions(overrides: Partial<ServeOptions> = {}): ServeOptions {
  return {
    port: 0,
    host: '127.0.0.1',
    memory: true,
    drainTimeoutMs: 30_000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    corsOrigins: [],
    console: true,
    ...overrides,
  };
}

/**
 * `troupe serve` run by its own command, `serveCommand`, in this process: it listens to this
 * process's real SIGINT and SIGTERM, and its log lines and console output are watched as they
 * are written. `io.exit` (a second signal's way out) is recorded instead of ending the process.
 */
export class ServeInProcess extends ServeOutput {
  /** The codes `serve` asked to exit with at once. */
  readonly exitCodes: number[] = [];
  readonly done: Promise<ExitCode>;
  readonly #stdin = new PassThrough();

  constructor(options: ServeOptions, env: Record<string, string> = {}) {
    super();
    const io = {
      stdin: this.#stdin,
      stdout: { write: (text: string) => this.takeStdout(text) },
      stderr: { write: (text: string) => this.takeStderr(text) },
      env: { TROUPE_LOG_LEVEL: 'info', ...env },
      signals: process,
      exit: (code: number) => {
        this.exitCodes.push(code);
        this.wake();
      },
    };
    this.done = serveCommand(options, io).finally(() => this.ended());
  }

  /** A line on the console, as if typed. */
  write(line: string): void {
    this.#stdin.write(`${line}\n`);
  }

  /** Ends the console's input, as Ctrl-D or the end of a piped stdin would. */
  endInput(): void {
    this.#stdin.end();
  }
}

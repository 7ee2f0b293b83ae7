import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** A JSON log line of `troupe serve` (pino). */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * `troupe serve …` from source in a child process, with its stdin writable and its JSON log
 * lines parsed as they arrive, so a test can wait for one (woken by output, not by a timer).
 */
export class ServeProcess {
  readonly logs: LogLine[] = [];
  stdout = '';
  stderr = '';
  readonly done: Promise<number | null>;
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  #wake: () => void = () => undefined;
  #exited = false;

  constructor(args: readonly string[], env: Record<string, string>) {
    this.#child = spawn(tsx, ['src/cli/main.ts', 'serve', ...args], {
      cwd: root,
      env: { ...process.env, TROUPE_LOG_LEVEL: 'info', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let partial = '';
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('{')) this.logs.push(JSON.parse(line) as LogLine);
      }
      this.#wake();
    });
    this.#child.stdout.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
      this.#wake();
    });
    this.done = new Promise((resolve) =>
      this.#child.on('close', (code) => {
        this.#exited = true;
        this.#wake();
        resolve(code);
      }),
    );
  }

  /** Resolves once `condition` holds; rejects if the process exits first. */
  async until<T>(condition: () => T | undefined, what: string): Promise<T> {
    for (;;) {
      const value = condition();
      if (value !== undefined && value !== false) return value;
      if (this.#exited) throw new Error(`troupe serve exited before ${what}\n${this.stderr}`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The first log line with message `msg`, once it is there. */
  log(msg: string): Promise<LogLine> {
    return this.until(() => this.logs.find((line) => line.msg === msg), `log "${msg}"`);
  }

  /** The base URL the HTTP API listens on. */
  async url(): Promise<string> {
    return String((await this.log('HTTP API listening'))['url']);
  }

  write(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  /** Ends stdin, as a closed terminal or an exhausted pipe would. */
  endInput(): void {
    this.#child.stdin.end();
  }

  signal(name: NodeJS.Signals): void {
    this.#child.kill(name);
  }
}

import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { projectRoot, troupeArgs } from './cliProcess.js';
import { ServeOutput } from './serveOutput.js';

/** `troupe serve …` (or another long-running `command`) from source in a child process, with its stdin writable and its output watched. */
export class ServeProcess extends ServeOutput {
  readonly done: Promise<number | null>;
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;

  constructor(args: readonly string[], env: Record<string, string>, command: 'serve' | 'node' = 'serve') {
    super();
    this.#child = spawn(process.execPath, troupeArgs([command, ...args]), {
      cwd: projectRoot,
      env: { ...process.env, TROUPE_LOG_LEVEL: 'info', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stderr.on('data', (chunk: Buffer) => this.takeStderr(chunk.toString()));
    this.#child.stdout.on('data', (chunk: Buffer) => this.takeStdout(chunk.toString()));
    this.done = new Promise((resolve) =>
      this.#child.on('close', (code) => {
        this.ended();
        resolve(code);
      }),
    );
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

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Compiled by `npm run bench`: the children are the compiled JavaScript beside this file; from source, TypeScript under tsx.
const compiled = import.meta.url.endsWith('.js');

/** A benchmark program running in a process of its own that talks in lines. */
export interface LineProcess {
  /** The first line it printed: its sign that it is ready. */
  readonly ready: string;
  /** Writes `line` to its stdin and resolves with the next line it prints. */
  ask(line: string): Promise<string>;
  /** Closes its stdin (its signal to exit) and resolves once it has. */
  stop(): Promise<void>;
}

/**
 * Starts the benchmark program `name` (`natsWorker`, `toolNodeWorker`, `modelServerWorker`)
 * beside this file in a process of its own with `args`; resolves once it prints its first line.
 */
export function startLineProcess(name: string, args: readonly string[]): Promise<LineProcess> {
  const script = fileURLToPath(new URL(compiled ? `${name}.js` : `${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), script, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const stopped = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`the bench program ${name} exited with ${String(code)} before it was ready`)));
    waiting.push((ready) =>
      resolve({
        ready,
        ask: (line) =>
          new Promise((answer) => {
            waiting.push(answer);
            child.stdin.write(`${line}\n`);
          }),
        stop: () => {
          child.stdin.end();
          return stopped;
        },
      }),
    );
  });
}

/** Starts the benchmark program `name` (see `startLineProcess`); resolves once it is ready, with the function that stops it. */
export async function startReadyProcess(name: string, args: readonly string[]): Promise<() => Promise<void>> {
  const child = await startLineProcess(name, args);
  return () => child.stop();
}

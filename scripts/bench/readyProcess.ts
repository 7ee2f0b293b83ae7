import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Compiled by `npm run bench`: the children are the compiled JavaScript beside this file; from source, TypeScript under tsx.
const compiled = import.meta.url.endsWith('.js');

/**
 * Starts the benchmark program `name` (`natsWorker`, `toolNodeWorker`) beside this file in a
 * process of its own with `args`; resolves once it prints its first line (it is ready), with a
 * function that closes its stdin (its signal to exit) and resolves once it has.
 */
export function startReadyProcess(name: string, args: readonly string[]): Promise<() => Promise<void>> {
  const script = fileURLToPath(new URL(compiled ? `${name}.js` : `${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), script, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const stopped = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`the bench program ${name} exited with ${String(code)} before it was ready`)));
    child.stdout.setEncoding('utf8').once('data', () =>
      resolve(() => {
        child.stdin.end();
        return stopped;
      }),
    );
  });
}

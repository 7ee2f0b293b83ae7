import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the working directory of every CLI process a test starts. */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Node's arguments for running the project's TypeScript file `script` (a path from the project's
 * root) with `args`: its JavaScript, transpiled once for the whole run by the global setup
 * (`transpiledSources.ts`), so the process pays for no transform of its own. Node runs it
 * directly, never through the `tsx` command, which relays a signal to its child only after
 * waiting 30 ms for it, and on a loaded machine gives up, kills it and exits 130.
 */
export function processArgs(script: string, args: readonly string[] = []): string[] {
  return [transpiledPath(script), ...args];
}

/** Where the global setup put the JavaScript of the project's TypeScript file `source` (a path from the project's root). */
export function transpiledPath(source: string): string {
  if (!source.endsWith('.ts')) throw new Error(`transpiledPath: ${source} is not a TypeScript file`);
  return join('build', 'test', `${source.slice(0, -'.ts'.length)}.js`);
}

/** Node's arguments for `troupe <args>`, from the sources (see `processArgs`). */
export function troupeArgs(args: readonly string[]): string[] {
  return processArgs('src/cli/main.ts', args);
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Starts `troupe <args>` from source in a child process. Unless the test names one, each run
 * gets a fresh data dir of its own (removed afterwards), so runs never share an organisation.
 */
export function startCli(args: readonly string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const ownDir = env['TROUPE_DATA_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'troupe-cli-')) : undefined;
  const child = spawn(process.execPath, troupeArgs(args), {
    cwd: projectRoot,
    env: { ...process.env, TROUPE_LOG_LEVEL: 'warn', ...(ownDir === undefined ? {} : { TROUPE_DATA_DIR: ownDir }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'] as const,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      if (ownDir !== undefined) rmSync(ownDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, done };
}

export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/**
 * Resolves with what `stream` has printed once it contains `text`; rejects if the process ends
 * first. Woken by the output, never by a timer: a slow start on a loaded machine only waits longer.
 */
export function untilPrinted(child: ChildProcess, stream: 'stdout' | 'stderr', text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let printed = '';
    const onData = (chunk: Buffer): void => {
      printed += chunk.toString();
      if (!printed.includes(text)) return;
      child[stream]?.off('data', onData);
      child.off('close', onClose);
      resolve(printed);
    };
    const onClose = (code: number | null): void =>
      reject(new Error(`the process exited (${String(code)}) before printing ${JSON.stringify(text)}:\n${printed}`));
    child[stream]?.on('data', onData);
    child.once('close', onClose);
  });
}

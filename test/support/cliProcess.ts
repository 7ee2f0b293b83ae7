import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The project's root: the working directory of every CLI process a test starts. */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Node's arguments for `troupe <args>` from source. Node itself loads tsx (`--import`), rather
 * than the `tsx` command: that one runs the CLI in a second process and relays a signal to it
 * only after waiting 30 ms for it to say it got one, and on a loaded machine gives up, kills
 * it and exits 130, so a test's SIGINT could end the service before it shut down.
 */
export function troupeArgs(args: readonly string[]): string[] {
  return ['--import', 'tsx', 'src/cli/main.ts', ...args];
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
 * What a child process has written on `stream` from now, once it includes `text` or the process
 * has ended: woken by its output, never by a timer, since a loaded machine may take seconds to start one.
 */
export function outputUntil(stream: Readable | null, done: Promise<unknown>, text: string): Promise<string> {
  let output = '';
  return new Promise((resolve) => {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) resolve(output);
    });
    void done.then(() => resolve(output));
  });
}

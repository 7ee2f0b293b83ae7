import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { processArgs } from './cliProcess.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs a script (`node <script> <args>`, transpiled: `processArgs`) until it prints `marker` on a
 * line of its own, kill -9s it there and returns its first stdout line (what it said of itself).
 * A script that exits on its own fails the test: the kill is what is under test.
 */
export async function firstLineKilledAt(script: string, args: readonly string[], marker: string): Promise<string> {
  const child = spawn(process.execPath, processArgs(script, args), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const state = { killed: false };
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes(`${marker}\n`)) state.killed = child.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (!state.killed) throw new Error(`${script} exited on its own (code ${code}): ${stderr}`);
  return stdout.split('\n')[0] ?? '';
}

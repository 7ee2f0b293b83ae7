import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs a writer script (`node --import tsx <script> <args>`) until `delayMs` after it prints
 * `ready`, kills it with SIGKILL, and returns the other lines it printed before it died. A writer
 * that exits on its own fails the test: the kill is what is under test.
 */
export async function runUntilKilled(script: string, args: readonly string[], delayMs: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const state = { killed: false };
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdout.on('data', (chunk: Buffer) => {
    const first = !stdout.includes('ready\n');
    stdout += chunk.toString();
    if (first && stdout.includes('ready\n')) {
      setTimeout(() => {
        state.killed = child.kill('SIGKILL');
      }, delayMs);
    }
  });
  const code = await exited;
  if (!state.killed) throw new Error(`writer exited on its own (code ${code}): ${stderr}`);
  return stdout.split('\n').filter((line) => line !== '' && line !== 'ready');
}

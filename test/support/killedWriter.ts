import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { processArgs } from './cliProcess.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * When a writer is killed: once it has printed `acks` acknowledgement lines after `ready`, plus
 * `jitterMs` more (so the kill also lands while writes are in flight, not only right after one).
 * Counting acknowledgements, not time, is what makes a round's work independent of the machine's
 * speed: a loaded machine kills later, never with less acknowledged.
 */
export interface KillPoint {
  readonly acks: number;
  readonly jitterMs: number;
}

/**
 * How many kill rounds a crash test runs: `rounds`, its share of a suite that must finish in ten
 * minutes on two cores, unless `TROUPE_CRASH_ROUNDS` asks for more (a soak run, or the hunt
 * for a rare seed).
 */
export function crashRounds(rounds: number): number {
  const asked = Number(process.env['TROUPE_CRASH_ROUNDS'] ?? '');
  return Number.isInteger(asked) && asked > 0 ? asked : rounds;
}

/** A seeded kill point: between 1 and `maxAcks` acknowledgements, plus up to 30 ms. */
export function randomKillPoint(random: () => number, maxAcks: number): KillPoint {
  return { acks: 1 + Math.floor(random() * maxAcks), jitterMs: Math.floor(random() * 31) };
}

/**
 * Runs a writer script (`node <script> <args>`, transpiled: `processArgs`) that prints `ready`, then one line
 * per acknowledged write, forever; kills it with SIGKILL at `at`, and returns the complete
 * acknowledgement lines it printed before it died (at least `at.acks`). A writer that exits on
 * its own fails the test: the kill is what is under test.
 */
export async function runUntilKilled(script: string, args: readonly string[], at: KillPoint): Promise<string[]> {
  const child = spawn(process.execPath, processArgs(script, args), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const state = { killed: false, scheduled: false };
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const acknowledged = (): string[] =>
    stdout
      .split('\n')
      .slice(0, -1) // a line cut by the kill was never acknowledged
      .filter((line) => line !== 'ready');
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (state.scheduled || acknowledged().length < at.acks) return;
    state.scheduled = true;
    setTimeout(() => {
      state.killed = child.kill('SIGKILL');
    }, at.jitterMs);
  });
  const code = await exited;
  if (!state.killed) throw new Error(`writer exited on its own (code ${code}): ${stderr}`);
  return acknowledged();
}

/**
 * Runs a writer script that kills itself (SIGKILL) at a moment of its own choosing, one no
 * outside kill can reliably hit (the instant an answer reaches it); returns the complete
 * acknowledgement lines it printed after `ready`. A writer that dies any other way fails the test.
 */
export async function runUntilSelfKilled(script: string, args: readonly string[]): Promise<string[]> {
  const child = spawn(process.execPath, processArgs(script, args), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, killedBy) => resolve(killedBy)));
  if (signal !== 'SIGKILL') throw new Error(`writer did not kill itself (signal ${signal}): ${stderr}`);
  return stdout
    .split('\n')
    .slice(0, -1)
    .filter((line) => line !== 'ready');
}

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openOrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';

// Issue 4: a runtime killed (-9) at random moments loses nothing it acknowledged — roles,
// agents, user messages — and every restart restores the organisation it finds.

const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = 20;

/** Starts the runtime on `dir`, kills it `delayMs` after it is ready, returns what it acknowledged. */
async function runAndKill(dir: string, round: number, delayMs: number): Promise<string[][]> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/runtime/crashRuntime.ts', dir, String(round)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const state = { killed: false };
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    const wasReady = stdout.includes('ready\n');
    stdout += chunk.toString();
    if (!wasReady && stdout.includes('ready\n')) setTimeout(() => (state.killed = child.kill('SIGKILL')), delayMs);
  });
  const code = await exited;
  if (!state.killed) throw new Error(`the runtime exited on its own (code ${code}): ${stderr}`);
  // A line cut by the kill was never acknowledged: keep only complete lines.
  return stdout
    .split('\n')
    .slice(0, -1)
    .filter((line) => line !== 'ready')
    .map((line) => line.split(' '));
}

describe('a runtime killed at random moments', () => {
  it(`loses no acknowledged role, agent or user message over ${rounds} kill -9 rounds`, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 1_000_000_000);
    console.log(`runtime crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'troupe-crash-'));
    const acknowledged: string[][] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        acknowledged.push(...(await runAndKill(dir, round, 20 + Math.floor(random() * 180))));
        const store = await openOrgStore({ dir });
        try {
          expect(store.quarantined()).toEqual([]);
          expect(store.agent('root')?.status).toBe('active');
          const roles = new Set(store.roles().map((role) => role.id));
          const agents = new Set(store.agents().map((agent) => agent.id));
          for (const [kind, id = ''] of acknowledged) {
            if (kind === 'role') expect(roles.has(id), `round ${round}: role ${id}`).toBe(true);
            else if (kind === 'agent') expect(agents.has(id), `round ${round}: agent ${id}`).toBe(true);
            else expect(store.messages(id)[0], `round ${round}: user message ${id}`).toMatchObject({ id, from: 'user', status: 'submitted' });
          }
        } finally {
          await store.close();
        }
      }
      expect(acknowledged.filter(([kind]) => kind === 'submit').length).toBeGreaterThan(rounds);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

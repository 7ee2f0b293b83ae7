import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { type KillPoint, crashRounds, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';

// Issue 4: a runtime killed (-9) at random moments loses nothing it acknowledged — roles,
// agents, user messages — and every restart restores the organisation it finds.

const rounds = crashRounds(12);

/** Starts the runtime on `dir`, kills it at `at`, returns what it acknowledged. */
async function runAndKill(dir: string, round: number, at: KillPoint): Promise<string[][]> {
  const lines = await runUntilKilled('test/runtime/crashRuntime.ts', [dir, String(round)], at);
  return lines.map((line) => line.split(' '));
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
        const at = randomKillPoint(random, 30);
        const acks = await runAndKill(dir, round, at);
        expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
        acknowledged.push(...acks);
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
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // A guard against a hang, not a measure: a process start a round takes minutes on a loaded 2-core machine.
  }, 900_000);
});

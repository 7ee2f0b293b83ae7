import { describe, expect, it } from 'vitest';
import type { OrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { type KillPoint, crashRounds, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';
import { orgHarness } from '../support/orgStoreFixture.js';

// Seed 004 / issue 4: a kill -9 at any moment loses nothing that was acknowledged, and
// leaves no corrupt record behind.

const { tempDir, openTestStore } = orgHarness();
const rounds = crashRounds(12);

/** Runs the writer until the kill point, kills it with SIGKILL, returns its acknowledgements. */
async function runAndKill(dir: string, round: number, at: KillPoint): Promise<string[][]> {
  const lines = await runUntilKilled('test/org/crashWriter.ts', [dir, String(round)], at);
  return lines.map((line) => line.split(' '));
}

/** Asserts that every acknowledged write is in the store; returns how many were checked. */
function assertAcknowledged(store: OrgStore, acks: readonly string[][]): number {
  const roles = new Set(store.roles().map((role) => role.id));
  const agents = new Map(store.agents().map((agent) => [agent.id, agent]));
  const inbox = new Set(store.inbox().map((task) => task.id));
  for (const [kind, id = '', length] of acks) {
    switch (kind) {
      case 'role':
        expect(roles, `acknowledged role ${id}`).toContain(id);
        break;
      case 'agent':
        expect(agents.has(id), `acknowledged agent ${id}`).toBe(true);
        break;
      case 'inbox':
        expect(inbox, `acknowledged inbox task ${id}`).toContain(id);
        break;
      case 'message':
        expect(
          store.messages(id).map((task) => task.id),
          `acknowledged message ${id}`,
        ).toEqual([id]);
        break;
      case 'conversation':
        expect(store.conversation(id), `acknowledged conversation of ${id}`).toHaveLength(Number(length));
        break;
      case 'terminated':
        expect(agents.get(id)?.status, `acknowledged termination of ${id}`).toBe('terminated');
        expect(store.terminations().some((termination) => termination.agentId === id)).toBe(true);
        break;
      default:
        throw new Error(`unexpected line from the writer: ${[kind, id].join(' ')}`);
    }
  }
  return acks.length;
}

describe('org store: crash safety', () => {
  it(`loses no acknowledged write over ${rounds} kill -9 rounds`, { timeout: rounds * 15_000 }, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await tempDir();
    const all: string[][] = [];
    for (let round = 0; round < rounds; round++) {
      const at = randomKillPoint(random, 40);
      const acks = await runAndKill(dir, round, at);
      expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
      all.push(...acks);
      const { store, logger } = await openTestStore(dir);
      // Everything acknowledged in this round and every earlier one is still there, and nothing is corrupt.
      assertAcknowledged(store, all);
      expect(store.quarantined(), `round ${round} (killed after ${at.acks} acks + ${at.jitterMs} ms)`).toEqual([]);
      expect(logger.entries.filter((entry) => entry.level !== 'debug' && entry.level !== 'info')).toEqual([]);
      // Parent links point at agents that exist.
      for (const agent of store.agents()) {
        if (agent.parentAgentId !== null) expect(store.children(agent.parentAgentId)).toContain(agent.id);
      }
      await store.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { OrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { type KillPoint, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';
import { orgHarness } from '../support/orgStoreFixture.js';

// Issue 12: writes commit off the main thread, many in flight. A kill -9 at any moment must
// leave a prefix of the writes in request order (each surviving write's predecessors survive)
// that holds every write acknowledged before the kill.

const { tempDir, openTestStore } = orgHarness();
const rounds = 12;

/** Runs the writer until the kill point, kills it with SIGKILL, returns the writes it acknowledged. */
async function runAndKill(dir: string, round: number, at: KillPoint): Promise<number[]> {
  const lines = await runUntilKilled('test/org/prefixWriter.ts', [dir, String(round)], at);
  return lines.flatMap((line) => (line.startsWith('ack ') ? [Number(line.slice(4))] : []));
}

/** The numbers of round `round`'s writes found in the store, and each sequence's numbers in stored order. */
function survivors(store: OrgStore, round: number): { found: Set<number>; sequences: number[][] } {
  const number = (id: string): number => Number(id.split('-')[2]);
  const log = store.messages(`log-${round}`).map((task) => number(task.id));
  const inbox = store
    .inbox()
    .filter((task) => task.id.startsWith(`i-${round}-`))
    .map((task) => number(task.id));
  const steps = store.conversation(`c-${round}`).map((step) => Number(step.content));
  const agents = store
    .agents()
    .filter((agent) => agent.id.startsWith(`a-${round}-`))
    .map((agent) => number(agent.id));
  const ended = store
    .terminations()
    .filter((t) => t.agentId.startsWith(`a-${round}-`))
    .map((t) => Number(t.reason));
  return { found: new Set([...log, ...inbox, ...steps, ...agents, ...ended]), sequences: [log, inbox, steps] };
}

describe('org store: crash consistency of writes in flight', () => {
  it(`keeps a prefix of the requested writes, holding every acknowledged one, over ${rounds} kill -9 rounds`, { timeout: 120_000 }, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`prefix test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await tempDir();
    let acknowledged = 0;
    let unacknowledgedSurvivors = 0;
    for (let round = 0; round < rounds; round++) {
      const at = randomKillPoint(random, 200);
      const acks = await runAndKill(dir, round, at);
      const { store } = await openTestStore(dir);
      const { found, sequences } = survivors(store, round);
      const context = `round ${round}, killed after ${at.acks} acks + ${at.jitterMs} ms`;
      expect(acks.length, context).toBeGreaterThanOrEqual(at.acks);
      // A prefix: 0 … found.size - 1, nothing missing below a survivor.
      expect(
        [...found].sort((a, b) => a - b),
        context,
      ).toEqual(Array.from({ length: found.size }, (_, n) => n));
      for (const n of acks) expect(found.has(n), `${context}: acknowledged write ${n}`).toBe(true);
      // Each sequence in request order, gap-free (stored by seq, read back in seq order).
      for (const sequence of sequences) expect(sequence, context).toEqual([...sequence].sort((a, b) => a - b));
      expect(store.quarantined(), context).toEqual([]);
      acknowledged += acks.length;
      unacknowledgedSurvivors += found.size - acks.length;
      await store.close();
    }
    console.info(`prefix test: ${acknowledged} writes acknowledged, ${unacknowledgedSurvivors} more survived unacknowledged`);
  });
});

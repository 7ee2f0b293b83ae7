import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { entriesDbName } from '../../src/memory/index.js';
import { openOrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { createRuntime } from '../../src/runtime/index.js';
import { crashRounds, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';

// A runtime forgetting terminated agents (terminatedAgentsKept: 2), killed (-9) at random
// moments: no memory outlives its agent's record (memories are erased before records are
// forgotten), nothing acknowledged is lost, and a clean start brings the store back to the limit.

const rounds = crashRounds(6);

/** Agents that own something in the memory sub-dbs or the index dir, and agents the store has. */
async function owners(dir: string): Promise<{ withMemory: Set<string>; agents: Set<string>; terminated: number }> {
  const store = await openOrgStore({ dir });
  const agents = new Set(store.agents().map(({ id }) => id));
  const terminated = store.agents().filter(({ status }) => status === 'terminated').length;
  expect(store.quarantined()).toEqual([]);
  await store.close();
  const root = open({ path: dir, noSubdir: false, maxDbs: 30, readOnly: true });
  const withMemory = new Set<string>();
  for (const name of [entriesDbName, 'memory-facts', 'memory-vectors', 'memory-meta']) {
    for (const key of root.openDB({ name }).getKeys({})) withMemory.add(String(Array.isArray(key) ? key[0] : key));
  }
  await root.close();
  const files = await readdir(join(dir, 'memory-index')).catch(() => []);
  for (const file of files) withMemory.add(file.slice(0, file.indexOf('.')));
  return { withMemory, agents, terminated };
}

describe('a runtime forgetting terminated agents, killed at random moments', () => {
  it(`leaves no memory without its agent and loses no acknowledged answer over ${rounds} kill -9 rounds`, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 1_000_000_000);
    console.log(`retention crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'troupe-retention-crash-'));
    const answered: string[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        const at = randomKillPoint(random, 20);
        const acks = await runUntilKilled('test/runtime/crashRetention.ts', [dir, String(round)], at);
        expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
        answered.push(...acks.map((line) => line.split(' ')[1] ?? ''));
        const found = await owners(dir);
        for (const id of found.withMemory) expect(found.agents.has(id), `round ${round}: memory of ${id}, an agent the store forgot`).toBe(true);
      }
      // A clean start and shutdown forgets what is past the limit.
      const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), terminatedAgentsKept: 2 });
      const unanswered = answered.filter((taskId) => !(rt.messageLog(taskId) ?? []).some((task) => task.to === 'user' && task.status === 'completed'));
      await rt.shutdown();
      expect(unanswered).toEqual([]);
      const found = await owners(dir);
      expect(found.terminated).toBe(2);
      for (const id of found.withMemory) expect(found.agents.has(id), `memory of ${id}, an agent the store forgot`).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

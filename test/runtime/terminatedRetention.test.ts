import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/llm/index.js';
import { entriesDbName } from '../../src/memory/index.js';
import { openOrgStore } from '../../src/org/index.js';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { retentionCheckEvery } from '../../src/runtime/journal/terminatedRetention.js';
import { MemoryLogger, societyOf } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { rejectedCode } from '../support/runtimeFixture.js';

// A service that spawns a worker per request (the offline model spawns, delegates to and
// terminates one for every requirement) keeps only the newest terminatedAgentsKept of them.

const later = cleanupAfterEach();

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-retention-'));
  later(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const runtimeOn = (dataDir: string, kept: number, inMemory = 0): Promise<Runtime> =>
  createRuntime({ dataDir, model: new OfflineModel(), logger: new MemoryLogger(), terminatedAgentsKept: kept, terminatedAgentsInMemory: inMemory });

/** Submits `n` requirements one after another; the workers spawned for them, in order. */
async function drive(rt: Runtime, n: number): Promise<string[]> {
  const workers: string[] = [];
  const spawned = rt.bus.on('agent.spawned').subscribe((task) => workers.push(task.from));
  for (let i = 0; i < n; i++) expect((await rt.waitForAnswer(await rt.submit(`write a haiku #${i}`), { timeoutMs: 10_000 })).status).toBe('completed');
  spawned.unsubscribe();
  return workers;
}

/** What the data dir keeps: agent ids and the agents owning memory entries. */
async function kept(dataDir: string): Promise<{ agents: string[]; terminations: string[]; withMemory: Set<string> }> {
  const store = await openOrgStore({ dir: dataDir });
  const agents = store.agents().map(({ id }) => id);
  const terminations = store.terminations().map(({ agentId }) => agentId);
  await store.close();
  const root = open({ path: dataDir, noSubdir: false, maxDbs: 30, readOnly: true });
  const withMemory = new Set<string>();
  for (const key of root.openDB({ name: entriesDbName }).getKeys({})) if (Array.isArray(key)) withMemory.add(String(key[0]));
  await root.close();
  return { agents, terminations, withMemory };
}

describe('terminated agents past terminatedAgentsKept are forgotten, with their memories', () => {
  it('keeps the newest, checked every few terminations and again at start; the forgotten are unknown', async () => {
    const dir = await tempDir();
    const rt = await runtimeOn(dir, 3);
    const workers = await drive(rt, retentionCheckEvery + 4);
    expect(workers).toHaveLength(retentionCheckEvery + 4);
    await rt.shutdown();

    // The check at the 16th termination kept its newest 3; four were terminated since.
    const afterRun = await kept(dir);
    const survivors = workers.slice(retentionCheckEvery - 3);
    expect(afterRun.agents.sort()).toEqual(['root', ...survivors].sort());
    expect(afterRun.terminations.sort()).toEqual([...survivors].sort());
    for (const gone of workers.slice(0, retentionCheckEvery - 3)) expect(afterRun.withMemory.has(gone)).toBe(false);
    // Workers remember what they were given: the kept ones' memories are still there.
    expect(survivors.some((id) => afterRun.withMemory.has(id))).toBe(true);

    // A restart checks at once: down to the newest 3.
    const again = await runtimeOn(dir, 3);
    const forgotten = workers[0] ?? '';
    expect(again.agent(forgotten)).toBeUndefined();
    expect(await rejectedCode(again.send(forgotten, 'hello?'))).toBe('unknown_agent');
    await again.shutdown();
    const afterRestart = await kept(dir);
    expect(afterRestart.agents.sort()).toEqual(['root', ...workers.slice(-3)].sort());
    for (const gone of workers.slice(0, -3)) expect(afterRestart.withMemory.has(gone)).toBe(false);
    expect(afterRestart.withMemory.has('root')).toBe(true);
  });

  it('keeps in memory no more terminated agents than the store keeps, so memory never shows one the store forgot', async () => {
    const dir = await tempDir();
    const rt = await runtimeOn(dir, 2, 1_000);
    const workers = await drive(rt, 5);
    const inMemory = societyOf(rt)
      .records()
      .filter(({ status }) => status === 'terminated')
      .map(({ id }) => id);
    expect(inMemory).toEqual(workers.slice(-2));
    await rt.shutdown();
  });
});

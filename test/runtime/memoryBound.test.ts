import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger, societyOf } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { rejectedCode } from '../support/runtimeFixture.js';

// A long-running society stays flat: every requirement the offline model gets spawns a worker,
// delegates to it and terminates it, as `troupe serve` under load does.

const later = cleanupAfterEach();

/** A temp data dir, removed after the test. */
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-limits-'));
  later(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function runtimeOn(dataDir: string | null, keep: number): Promise<Runtime> {
  return createRuntime({ dataDir, model: new OfflineModel(), logger: new MemoryLogger(), terminatedAgentsInMemory: keep, inboxLimit: 4 });
}

async function drive(rt: Runtime, tasks: number): Promise<string[]> {
  const workers: string[] = [];
  rt.bus.on('agent.spawned').subscribe((task) => workers.push(task.from));
  for (let i = 0; i < tasks; i++) {
    const answer = await rt.waitForAnswer(await rt.submit(`write a haiku #${i}`), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
  }
  return workers;
}

describe('terminated agents leave memory', () => {
  it('keeps the live agents and the last terminatedAgentsInMemory terminated ones; older ones are read from the store', async () => {
    const dir = await tempDir();
    const rt = await runtimeOn(dir, 2);
    const workers = await drive(rt, 5);
    expect(workers).toHaveLength(5);
    const society = societyOf(rt);
    expect(society.liveIds()).toEqual(['root']);
    expect(society.records().map((record) => record.id)).toEqual(['root', ...workers.slice(3)]);
    expect(society.terminations().map((termination) => termination.agentId)).toEqual(workers.slice(3));

    // An agent gone from memory is still known, as terminated, from the store.
    const oldest = workers[0] ?? '';
    expect(rt.agent(oldest)).toMatchObject({ id: oldest, status: 'terminated', state: 'terminated' });
    expect(await rejectedCode(rt.send(oldest, 'hello?'))).toBe('agent_terminated');
    // The society's usage still counts every agent: five tasks of five root calls and one worker call.
    expect(rt.usage().calls).toBe(30);

    // Per-Task bookkeeping stays bounded: the inbox holds its window, nothing waits anywhere.
    expect(rt.inbox()).toHaveLength(4);
    expect(rt.bus.pendingRequests).toBe(0);
    await rt.shutdown();

    // A restart brings back the same bounded window, not every agent ever spawned.
    const again = await runtimeOn(dir, 2);
    expect(
      societyOf(again)
        .records()
        .map((record) => record.id),
    ).toEqual(['root', ...workers.slice(3)]);
    expect(again.agentPage({ status: 'terminated' })).toMatchObject({ total: 5, source: 'store' });
    await again.shutdown();
  });

  it('without a store, terminated agents past the window are forgotten', async () => {
    const rt = await runtimeOn(null, 1);
    const workers = await drive(rt, 3);
    expect(
      societyOf(rt)
        .records()
        .map((record) => record.id),
    ).toEqual(['root', workers[2]]);
    expect(rt.agent(workers[0] ?? '')).toBeUndefined();
    expect(rt.agentPage({ status: 'terminated' })).toMatchObject({ total: 1, source: 'memory' });
    expect(rt.usage().calls).toBe(18);
    await rt.shutdown();
  });
});

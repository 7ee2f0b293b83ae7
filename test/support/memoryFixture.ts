import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RootDatabase, open } from 'lmdb';
import { afterEach } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { AgentMemory, type MemoryLimitsInput } from '../../src/memory/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, type TaskStatus, createTask } from '../../src/task/index.js';
import { sequentialIds } from '../../src/ids.js';
import { FactStoreDouble } from './factStoreDouble.js';

/** Opens an LMDB environment as the org store does (the memory's sub-dbs live in it). */
export function openEnv(dir: string): RootDatabase {
  return open({ path: dir, noSubdir: false, maxDbs: 20 });
}

/** Temp LMDB environments of one test file, closed and removed after each test. */
export function envHarness(): { tempEnv: () => Promise<{ dir: string; env: RootDatabase }>; reopen: (dir: string) => RootDatabase } {
  const dirs: string[] = [];
  const envs: RootDatabase[] = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const reopen = (dir: string): RootDatabase => {
    const env = openEnv(dir);
    envs.push(env);
    return env;
  };
  return {
    tempEnv: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-memory-'));
      dirs.push(dir);
      return { dir, env: reopen(dir) };
    },
    reopen,
  };
}

let made = 0;

/** A Task for memory tests: by default from a peer agent to `agent` (base importance 0.5: not marked for L2), in session `s1`. */
export function memoryTask(
  init: { id?: string; from?: string; to?: string; sessionId?: string; text?: string; action?: string; status?: TaskStatus; importance?: number } = {},
  clock = new SimulatedClock(0),
): Task {
  const id = init.id ?? `m${++made}`;
  return createTask(
    {
      id,
      from: init.from ?? 'peer',
      to: init.to ?? 'agent',
      sessionId: init.sessionId ?? 's1',
      action: init.action ?? 'execute',
      status: init.status ?? 'submitted',
      parameters: { text: init.text ?? `Please look into item ${id} and report what you find.` },
      metadata: init.importance === undefined ? {} : { importance: init.importance },
    },
    { ids: sequentialIds(), clock },
  );
}

/** An agent memory on a simulated clock with a FactStore double; `db` null keeps it in memory only. */
export async function openMemory(
  init: { agentId?: string; db?: RootDatabase | null; limits?: MemoryLimitsInput; clock?: SimulatedClock; facts?: FactStoreDouble } = {},
): Promise<{ memory: AgentMemory; clock: SimulatedClock; facts: FactStoreDouble; logger: MemoryLogger }> {
  const agentId = init.agentId ?? 'agent';
  const clock = init.clock ?? new SimulatedClock(1_000_000);
  const facts = init.facts ?? FactStoreDouble.open(agentId, init.db ?? null);
  const logger = new MemoryLogger();
  const memory = await AgentMemory.open({ agentId, db: init.db ?? null, facts, clock, logger, limits: init.limits ?? {} });
  return { memory, clock, facts, logger };
}

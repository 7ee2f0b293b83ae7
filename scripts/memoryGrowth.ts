// Memory a long-running society keeps per Task: drives N requirements through a runtime on a data
// dir with the offline model (each one spawns a worker, delegates to it and terminates it, as
// `troupe serve` under load does) and prints the heap used before and after, per Task, and how
// many session contexts the root agent keeps in memory (each submit is a session of its own; at
// most `sessionsInMemoryPerAgent` stay).
//
// The runtime's bounded windows (terminated agents' records, the user's inbox) fill during the
// warm-up when they are set small enough, so what the run adds is what grows without bound.
//
//   node --expose-gc --import tsx scripts/memoryGrowth.ts [tasks=2000] [warmup=200] [terminatedAgentsInMemory=1000] [inboxLimit=10000]

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OfflineModel, createRuntime } from '../src/index.js';
import { silentLogger } from '../src/logger.js';
import { internalsOf } from '../src/runtime/internals.js';

const tasks = Number(process.argv[2] ?? 2000);
const warmup = Number(process.argv[3] ?? 200);
const terminatedAgentsInMemory = Number(process.argv[4] ?? 1000);
const inboxLimit = Number(process.argv[5] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

/** Heap used once garbage is collected, in bytes. */
function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const dir = await mkdtemp(join(tmpdir(), 'troupe-memory-'));
const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: silentLogger, terminatedAgentsInMemory, inboxLimit });
const society = internalsOf(rt).society;
const drive = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const answer = await rt.waitForAnswer(await rt.submit(`write a haiku about rain #${i}`), { timeoutMs: 60_000 });
    if (answer.status !== 'completed') throw new Error(`task ${i} ended ${answer.status}: ${answer.error?.message ?? ''}`);
  }
};

await drive(warmup);
const before = heapUsed();
const started = Date.now();
await drive(tasks);
const elapsed = Date.now() - started;
const after = heapUsed();
const sessions = society.agent('root')?.sessionsInMemory ?? 0;

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;
console.log(
  `tasks ${tasks} (after ${warmup} warm-up), ${(elapsed / tasks).toFixed(1)} ms a task; terminatedAgentsInMemory ${terminatedAgentsInMemory}, inboxLimit ${inboxLimit}`,
);
console.log(`heap used before ${(before / 2 ** 20).toFixed(1)} MB, after ${(after / 2 ** 20).toFixed(1)} MB: ${kb((after - before) / tasks)} a task`);
console.log(`  root's session contexts in memory: ${sessions} (sessionsInMemoryPerAgent ${rt.config.sessionsInMemoryPerAgent})`);
console.log(
  `live agents ${society.liveIds().length}, agent records in memory ${society.records().length}, terminations in memory ${society.terminations().length}, inbox ${rt.inbox().length}`,
);
await rt.shutdown();
await rm(dir, { recursive: true, force: true });

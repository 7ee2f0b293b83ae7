// How long a restart on a data dir full of unanswered Tasks takes before the runtime (and so
// `troupe serve`'s HTTP API) is up, and how many model calls are in flight then: builds a data
// dir whose `agents` agents each hold `tasksEach` waiting Tasks, then times createRuntime on it.
//
//   node --import tsx scripts/restartWithWaitingTasks.ts [agents=100] [tasksEach=200] [maxConcurrentModelCalls=8]

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';

const agents = Number(process.argv[2] ?? 100);
const tasksEach = Number(process.argv[3] ?? 200);
const maxConcurrentModelCalls = Number(process.argv[4] ?? 8);
const hangs = (n: number): { hang: true }[] => Array.from({ length: n }, () => ({ hang: true as const }));

const dir = await mkdtemp(join(tmpdir(), 'troupe-restart-'));
const first = await createRuntime({
  dataDir: dir,
  model: new ScriptedModel(hangs(agents + 1)),
  maxLiveAgents: agents + 1,
  maxConcurrentModelCalls: agents + 1,
});
await first.createRole({ name: 'w', prompt: 'work' });
const building = Date.now();
for (let i = 0; i < agents; i++) {
  const id = await first.spawn({ role: 'w' });
  await Promise.all(Array.from({ length: tasksEach }, (_, n) => first.send(id, `job ${n}`)));
}
const { pendingTasks } = await first.shutdown({ drainTimeoutMs: 0 });
console.log(`data dir with ${pendingTasks} waiting Tasks on ${agents} agents built in ${((Date.now() - building) / 1000).toFixed(1)} s`);

const model = new ScriptedModel(hangs(pendingTasks));
const started = Date.now();
const rt = await createRuntime({ dataDir: dir, model, maxLiveAgents: agents + 1, maxConcurrentModelCalls });
const up = Date.now() - started;
// Let the resumed turns reach the model: only maxConcurrentModelCalls of them get a slot.
for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve));
console.log(`restart: createRuntime resolved in ${up} ms; model calls in flight ${model.requests.length} (limit ${maxConcurrentModelCalls})`);
await rt.shutdown({ drainTimeoutMs: 0 });
await rm(dir, { recursive: true, force: true });

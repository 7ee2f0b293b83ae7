// How soon a restart on a data dir full of unanswered Tasks is usable (createRuntime resolved,
// so `troupe serve` can open its HTTP API), how long its background restore takes until every
// agent runs, the longest the event loop was held by one slice of it meanwhile, and how many model
// calls are in flight then: builds a data dir whose `agents` agents each hold `tasksEach` waiting
// Tasks, then restarts on it.
//
//   node --import tsx scripts/restartWithWaitingTasks.ts [agents=100] [tasksEach=200] [maxConcurrentModelCalls=8] [restoreSliceTasks=default]

import { rm } from 'node:fs/promises';
import { createRuntime } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';
import { hangs, waitingTasksDataDir } from '../test/support/waitingTasksDataDir.js';

const agents = Number(process.argv[2] ?? 100);
const tasksEach = Number(process.argv[3] ?? 200);
const maxConcurrentModelCalls = Number(process.argv[4] ?? 8);
const slice = process.argv[5] === undefined ? {} : { restoreSliceTasks: Number(process.argv[5]) };

const building = Date.now();
const { dir, pendingTasks } = await waitingTasksDataDir(agents, tasksEach);
console.log(`data dir with ${pendingTasks} waiting Tasks on ${agents} agents built in ${((Date.now() - building) / 1000).toFixed(1)} s`);

/** The longest the event loop went without a turn, from now until `stop` is called. */
function longestStall(): () => number {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const turn = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    running = false;
    return longest;
  };
}

const model = new ScriptedModel(hangs(pendingTasks));
const started = performance.now();
const rt = await createRuntime({ dataDir: dir, model, maxLiveAgents: agents + 1, maxConcurrentModelCalls, ...slice });
const usable = performance.now() - started;
const stall = longestStall();
const { restored, tasks } = await rt.restored();
const restoredMs = performance.now() - started;
const longest = stall();
// Let the resumed turns reach the model: only maxConcurrentModelCalls of them get a slot.
for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve));
console.log(
  `restart (restoreSliceTasks ${rt.config.restoreSliceTasks}): usable (createRuntime resolved) in ${usable.toFixed(0)} ms; ` +
    `${restored} agents and ${tasks} Tasks restored in ${restoredMs.toFixed(0)} ms; longest event-loop stall meanwhile ${longest.toFixed(0)} ms; ` +
    `model calls in flight ${model.requests.length} (limit ${maxConcurrentModelCalls})`,
);
await rt.shutdown({ drainTimeoutMs: 0 });
await rm(dir, { recursive: true, force: true });

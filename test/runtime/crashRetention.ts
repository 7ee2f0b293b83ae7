/**
 * A runtime that keeps a service's workers coming and going until it is killed: run by
 * crash.retention.test.ts, which kill -9s it. Every requirement submitted to the offline model
 * spawns a worker and terminates it, and the store keeps only the newest two terminated agents,
 * so retention rounds (erase memories, then forget records) run often, and at every start. Each
 * line on stdout is an acknowledgement, printed only after the call resolved: `answered <taskId>`.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';

const [dir = '', round = '0'] = process.argv.slice(2);
const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), terminatedAgentsKept: 2 });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const taskId = await rt.submit(`write a haiku about rain, round ${round} step ${i}`);
  const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
  if (answer.status !== 'completed') throw new Error(`task ${taskId} ended ${answer.status}`);
  process.stdout.write(`answered ${taskId}\n`);
}

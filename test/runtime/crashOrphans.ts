/**
 * A runtime whose root hires and lets go of a worker for every requirement until it is killed:
 * run by crash.orphans.test.ts, which kill -9s it. The offline model's playbook makes each turn
 * create a role, spawn a worker, delegate to it and terminate it, so a kill lands at any of those
 * steps. Each line on stdout is an acknowledgement, printed only after the call resolved:
 * `answered <taskId>`.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';

const [dir = '', round = '0'] = process.argv.slice(2);
const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger() });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const taskId = await rt.submit(`write a haiku about rain, round ${round} step ${i}`);
  const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
  if (answer.status !== 'completed') throw new Error(`task ${taskId} ended ${answer.status}: ${JSON.stringify(answer.error)}`);
  process.stdout.write(`answered ${taskId}\n`);
}

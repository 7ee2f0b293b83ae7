/**
 * A runtime answering requirements until it kills itself (-9) the instant the `killAt`th answer
 * reaches the user: run by crash.answers.test.ts. Each requirement to the offline model spawns
 * a worker, delegates to it and terminates it. Each line on stdout is an answer the user
 * received, printed as it arrives (so also answers a restart gives to Tasks of earlier rounds):
 * `answered <taskId> <status>`.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { finalStatuses } from '../../src/task/index.js';

const [dir = '', round = '0', killAt = '1'] = process.argv.slice(2);
const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), terminatedAgentsKept: 2 });
let received = 0;
rt.onOutput((task) => {
  if (!finalStatuses.has(task.status)) return;
  process.stdout.write(`answered ${task.id} ${task.status}\n`);
  if (++received >= Number(killAt)) process.kill(process.pid, 'SIGKILL');
});
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const taskId = await rt.submit(`write a haiku about rain, round ${round} step ${i}`);
  await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
}

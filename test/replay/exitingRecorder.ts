/**
 * A recorded runtime answering requirements, run by recordingLimits.test.ts: with `exit`, it
 * answers one and exits at once (process.exit, no shutdown), and its recording must still hold
 * the answer; with `forever`, it prints `ready`, then a line per answer, until it is killed.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';

const [file = '', mode = 'exit'] = process.argv.slice(2);
const rt = await createRuntime({ model: new OfflineModel(), logger: new MemoryLogger(), record: file });
if (mode === 'forever') process.stdout.write('ready\n');
for (;;) {
  const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 60_000 });
  process.stdout.write(`${answer.id} ${answer.status}\n`);
  if (mode === 'exit') process.exit(0);
}

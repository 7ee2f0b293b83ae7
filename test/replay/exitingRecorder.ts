/**
 * A recorded runtime that answers one requirement and exits at once (process.exit, no shutdown):
 * run by recordingLimits.test.ts. Its recording must still hold the answer, written at exit.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';

const [file = ''] = process.argv.slice(2);
const rt = await createRuntime({ model: new OfflineModel(), logger: new MemoryLogger(), record: file });
const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 60_000 });
process.stdout.write(`${answer.id} ${answer.status}\n`);
process.exit(0);

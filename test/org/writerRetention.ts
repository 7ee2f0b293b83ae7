// Child process of the writer retention test (run with --expose-gc): makes `count` durable
// writes through one org store, and prints the heap that is still held afterwards, per write.
// Usage: node --expose-gc --import tsx test/org/writerRetention.ts <dir> <count>
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { openOrgStore } from '../../src/org/index.js';
import { createTask } from '../../src/task/index.js';

const [dir, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (dir === undefined || !Number.isSafeInteger(count)) throw new Error('usage: writerRetention.ts <dir> <count>');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const store = await openOrgStore({ dir });
const task = createTask({ from: 'user', to: 'root', action: 'execute', parameters: { text: 'hello' } }, { ids: randomIds, clock: systemClock });
// Warm up: the sub-dbs, the code paths and lmdb's buffers are made once, not per write.
for (let i = 0; i < 200; i++) await store.appendMessage(task.id, task);
gc();
const before = process.memoryUsage().heapUsed;
// A hundred writes in flight at a time, as a busy runtime has them.
for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: 100 }, () => store.appendMessage(task.id, task)));
await store.flushed();
gc();
const after = process.memoryUsage().heapUsed;
process.stdout.write(`${JSON.stringify({ writes: count, bytesPerWrite: (after - before) / count })}\n`);
await store.close();

// Child process of the deferred-index restart test: stores a first batch of facts and saves the
// index file, then adds batches of facts, each issued at once, until a batch resolves (on disk)
// with vectors still waiting for the index; then prints how many wait and kills itself (SIGKILL),
// before the index has caught up or its file is saved again. Prints the ids of every batch only
// once the batch is acknowledged.
// Usage: node test/memory/facts/unindexedWriter.ts <dir>
import { join } from 'node:path';
import { open } from 'lmdb';
import { createLogger } from '../../../src/logger.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../../src/memory/facts/factStore.js';
import { seededRandom } from '../../../src/random.js';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: unindexedWriter.ts <dir>');
const batchSize = 100;

const db = open({ path: join(dir, 'store'), noSubdir: false, maxDbs: 20 });
const store = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db, indexDir: join(dir, 'index'), logger: createLogger('error') });
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before the kill.
const ack = (...fields: (string | number)[]): void => void process.stdout.write(`${fields.join(' ')}\n`);

/** Four made-up words, different for every fact, so each is found first by its own text. */
function text(n: number): string {
  const random = seededRandom(n);
  const word = (): string => Array.from({ length: 6 + Math.floor(random() * 4) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
  return [word(), word(), word(), word()].join(' ');
}

async function addBatch(batch: number): Promise<string[]> {
  const facts = Array.from({ length: batchSize }, (_, i) => ({ text: text(batch * batchSize + i), scope: 'agent' as const, sessionId: null, importance: 0.5 }));
  return (await Promise.all(facts.map((fact) => store.add(fact)))).map((added) => added.fact.id);
}

ack('ready');
ack('added', ...(await addBatch(0)));
await store.flush();
ack('saved');
for (let batch = 1; batch <= 50; batch++) {
  ack('added', ...(await addBatch(batch)));
  if (store.unindexed > 0) {
    ack('unindexed', store.unindexed);
    process.kill(process.pid, 'SIGKILL');
  }
}
throw new Error('the index caught up with every batch before its adds resolved');

// Child process of the L4 crash test: adds groups of three close facts and compresses after
// each group, forever, until it is killed; prints a line for each step only after it was
// acknowledged (the awaited call returned, so it is on disk).
// Usage: node --import tsx test/memory/facts/compressingWriter.ts <dir> <round>
import { join } from 'node:path';
import { open } from 'lmdb';
import { createLogger } from '../../../src/logger.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../../src/memory/facts/factStore.js';
import { seededRandom } from '../../../src/random.js';

const [dir, round] = process.argv.slice(2);
const fillers = 150;
if (dir === undefined || round === undefined) throw new Error('usage: compressingWriter.ts <dir> <round>');

const db = open({ path: join(dir, 'store'), noSubdir: false, maxDbs: 20 });
const store = await FactStore.open({
  agentId: 'root',
  embedder: new HashedNgramEmbedder(),
  db,
  indexDir: join(dir, 'index'),
  logger: createLogger('error'),
  // Nothing merges on add, and each group of three is one cluster that passes the fidelity check.
  limits: { mergeThreshold: 1, clusterThreshold: 0.7 },
});
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before any kill.
const ack = (...fields: (string | number)[]): void => void process.stdout.write(`${fields.join(' ')}\n`);

/** Four made-up words, different for every group of every round (and for the fillers, round -1). */
function topic(n: number, of = Number(round)): string {
  const random = seededRandom(of * 100_000 + n);
  const word = (): string => Array.from({ length: 6 + Math.floor(random() * 4) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
  return [word(), word(), word(), word()].join(' ');
}

// Unrelated facts that every compression must look through, so that it takes long enough (milliseconds to
// tens of them) for kills to land inside it, not only between steps.
// Added all at once, so that lmdb commits them together.
const filling = Array.from({ length: Math.max(0, fillers - store.size) }, (_, n) => topic(n, -1));
await Promise.all(filling.map((text) => store.add({ text, scope: 'agent', sessionId: null, importance: 0.5 })));
ack('ready');

for (let n = 0; ; n++) {
  const words = topic(n);
  const ids: string[] = [];
  for (const tail of ['alpha', 'beta', 'gamma'])
    ids.push((await store.add({ text: `${words} ${tail}`, scope: 'agent', sessionId: null, importance: 0.5 })).fact.id);
  ack('added', ...ids);
  ack('compressed', (await store.compress()).merged);
}

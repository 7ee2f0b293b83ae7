// What one agent's L4 facts cost: adds `facts` facts to a FactStore on an LMDB environment in a
// temp dir (opened as the org store opens its own), with the offline embedder (384 dimensions),
// as a chat service's root gets them: spread over `sessions` sessions, each with provenance
// metadata. Compresses whenever it is due, as the memory compactor would. Prints, every `every`
// facts, the process's anonymous memory, the live heap after a full GC, the store file's size and
// the facts held; then the cost per fact of the first `compressAbove` facts.
//
//   node --expose-gc --import tsx scripts/factFootprint.ts [facts=10000] [sessions=200] [every=2000] [compressAbove=4000]

import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { HashedNgramEmbedder } from '../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../src/memory/facts/factStore.js';

const [facts, sessions, every, compressAbove] = [10_000, 200, 2000, 4000].map((fallback, i) => Number(process.argv[i + 2] ?? fallback)) as [
  number,
  number,
  number,
  number,
];
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const anonymousMb = (): number => Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;
const dir = await mkdtemp(join(tmpdir(), 'troupe-facts-'));
// As the org store: one map with room to grow, so growth never maps the file twice.
const db = open({ path: join(dir, 'store'), maxDbs: 8, mapSize: 16 * 1024 ** 3 });
const limits = { compressAbove, keepTopN: Math.floor(compressAbove * 0.8) };
const store = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db, indexDir: join(dir, 'index'), limits });

interface Sample {
  readonly added: number;
  readonly held: number;
  readonly anonymous: number;
  readonly heap: number;
  readonly file: number;
}
const sample = (added: number): Sample => {
  gc();
  const file = statSync(join(dir, 'store', 'data.mdb')).size / 2 ** 20;
  return { added, held: store.size, anonymous: anonymousMb(), heap: process.memoryUsage().heapUsed / 2 ** 20, file };
};
const print = (row: Sample): void =>
  console.log(`| ${row.added} | ${row.held} | ${row.anonymous.toFixed(0)} | ${row.heap.toFixed(0)} | ${row.file.toFixed(0)} |`);

console.log('| facts added | facts held | anonymous memory (MB) | live heap (MB) | store file (MB) |');
console.log('| --- | --- | --- | --- | --- |');
// One fact first, so the index and hnswlib exist before the baseline.
await store.add({ text: 'the user said hello', scope: 'agent', sessionId: null, importance: 0.5 });
const start = sample(1);
print(start);
let beforeFirstCompression: Sample | undefined;
for (let i = 1; i <= facts; i++) {
  // Distinct texts, as users' requests are: a number and a made-up word no other fact shares.
  const word = (i * 2_654_435_761).toString(36).slice(-7);
  await store.add({
    text: `request ${i} of the user in this session: plan the ${word} project and write down its ${word} steps`,
    scope: 'session',
    sessionId: `session-${i % sessions}`,
    importance: 0.3 + (i % 7) / 10,
    metadata: { promotionId: randomUUID(), part: 0, taskIds: [randomUUID(), randomUUID()] },
  });
  if (store.needsCompression()) {
    beforeFirstCompression ??= sample(i);
    console.log(`compressed: ${JSON.stringify(await store.compress())}`);
  }
  if (i % every === 0) print(sample(i));
}
const full = beforeFirstCompression ?? sample(facts);
const held = full.held - start.held;
const perFact = (mb: number): string => ((mb * 2 ** 20) / held / 1024).toFixed(1);
console.log(
  `per fact, over the first ${held} facts: ${perFact(full.anonymous - start.anonymous)} KB of anonymous memory ` +
    `(${perFact(full.heap - start.heap)} KB of it live heap), ${perFact(full.file - start.file)} KB of store file`,
);
await store.close();
await db.close();
await rm(dir, { recursive: true, force: true });

// A flood of `remember` adds into one agent's L4, as issue 30 saw it (100,000 facts from 25
// sessions, many at once): `concurrency` adds in flight at every moment against a FactStore on an
// LMDB environment in a temp dir, with the offline embedder and the default limits, and beside
// them a compactor that compresses whenever the store says it is due. A third of the facts are
// rewordings of another, so compression has clusters to merge as well as facts to drop. Prints
// the most facts the store held, the compressions and whether each report adds up, refusals, and
// the longest the event loop was held (perf_hooks.monitorEventLoopDelay, 10 ms resolution). Then, in a
// fresh store filled to `compressAbove`, one more add and the compression it makes due, with
// nothing else running: the longest the event loop was held while that compression ran.
//
//   node --import tsx scripts/l4Flood.ts [facts=20000] [sessions=25] [concurrency=64]

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { open } from 'lmdb';
import { TroupeError } from '../src/errors.js';
import { MemoryLogger } from '../src/logger.js';
import { HashedNgramEmbedder } from '../src/memory/embedding/hashedNgramEmbedder.js';
import { type CompressionReport, FactStore } from '../src/memory/facts/factStore.js';
import { floodFact } from '../test/support/clusteredFacts.js';

const [facts, sessions, concurrency] = [20_000, 25, 64].map((fallback, i) => Number(process.argv[i + 2] ?? fallback)) as [number, number, number];

const dir = await mkdtemp(join(tmpdir(), 'troupe-l4-flood-'));
const db = open({ path: join(dir, 'store'), maxDbs: 8, mapSize: 16 * 1024 ** 3 });
const logger = new MemoryLogger();
const store = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db, indexDir: join(dir, 'index'), logger });

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let most = 0;
let refused = 0;
const reports: CompressionReport[] = [];
let compressing: Promise<void> | undefined;
const compactIfDue = (): void => {
  if (compressing !== undefined || !store.needsCompression()) return;
  compressing = store
    .compress()
    .then((report) => void reports.push(report))
    .finally(() => (compressing = undefined));
};

const started = performance.now();
let next = 0;
async function lane(): Promise<void> {
  while (next < facts) {
    const i = next++;
    try {
      await store.add(floodFact(i, sessions));
    } catch (error) {
      if (!(error instanceof TroupeError && error.code === 'memory_full')) throw error;
      refused++;
    }
    most = Math.max(most, store.size);
    compactIfDue();
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
await compressing;
delay.disable();
const seconds = (performance.now() - started) / 1000;

const addsUp = (report: CompressionReport): boolean => report.after === report.before - report.mergedAway + report.merged - report.dropped;
const madeRoom = logger.entries
  .filter((entry) => entry.message === 'L4 compressed to make room for adds')
  .map((entry) => entry.fields as unknown as CompressionReport);
console.log(`${facts} adds, ${sessions} sessions, ${concurrency} in flight: ${seconds.toFixed(1)} s`);
console.log(`most facts held: ${most} (compressAbove 4000), held at the end: ${store.size}, adds refused: ${refused}`);
console.log(
  `compressions: ${reports.length} by the flood's compactor, ${madeRoom.length} to make room for adds; reports that add up: ${[...reports, ...madeRoom].filter(addsUp).length}`,
);
console.log(
  `event loop held: longest ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, mean ${(delay.mean / 1e6).toFixed(1)} ms`,
);
await store.close();

// A compression alone: a store at compressAbove, then one add past it (the compression is due).
const alone = await FactStore.open({ agentId: 'alone', embedder: new HashedNgramEmbedder(), db, indexDir: join(dir, 'index') });
const compressAbove = 4000;
let filled = 0;
while (alone.size < compressAbove) {
  await alone.add(floodFact(filled, sessions));
  filled++;
}
const held = alone.size;
const lone = monitorEventLoopDelay({ resolution: 10 });
lone.enable();
const compressionStarted = performance.now();
await alone.add(floodFact(filled, sessions));
const report = alone.needsCompression() ? await alone.compress() : undefined;
lone.disable();
console.log(
  `one add past ${held} facts and its compression${report === undefined ? '' : ` (run after the add: ${JSON.stringify(report)})`}: ${((performance.now() - compressionStarted) / 1000).toFixed(1)} s, held ${alone.size} after; event loop held: longest ${(lone.max / 1e6).toFixed(0)} ms`,
);
await alone.close();
await db.close();
await rm(dir, { recursive: true, force: true });

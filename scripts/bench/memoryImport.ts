import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { createRuntime, sequentialIds } from '../../src/index.js';
import { ScriptedModel } from '../../src/llm/index.js';
import type { ImportItem } from '../../src/runtime/index.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { sized } from './benchSize.js';
import { elapsedMs } from './measure.js';
import { type Row, rate } from './report.js';
import { silentLogger } from './silentLogger.js';

// Issue 33: memory a program writes. `rt.importMemory` of a chat history (turns) and of facts
// into a live agent on a data dir, timed until it resolves (every item checked, embedded and
// durable in LMDB), against the floor: the offline embedder over the same texts and one lmdb put
// of each record, batched in transactions of 256, as the import writes them. The vectors go into
// the hnswlib index after the import resolves (searches compare with them until then); the
// index's catching up is timed apart.

const items = sized(10_000, 200);
const speakers = ['Ana', 'Ben', 'Chloé', 'Dev'];
const places = ['Porto', 'Lisbon', 'Oslo', 'Kyoto', 'Quito', 'Accra', 'Perth', 'Lyon'];

function turns(count: number): ImportItem[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: 'turn',
    speaker: speakers[i % speakers.length] ?? 'Ana',
    text: `On day ${i % 365} I took the ${i % 3 === 0 ? 'train' : 'ferry'} to ${places[i % places.length] ?? ''} and met ${speakers[(i + 1) % speakers.length] ?? ''} about order ${i * 7919}.`,
    at: 1_700_000_000_000 + i * 60_000,
    conversation: `chat-${Math.floor(i / 100)}`,
  }));
}

function facts(count: number): ImportItem[] {
  return Array.from({ length: count }, (_, i) => ({
    text: `Order ${i * 7919} ships from ${places[i % places.length] ?? ''} on day ${i % 365}.`,
    metadata: { source: `erp-${i}` },
  }));
}

/** Items a second through `rt.importMemory`, and the milliseconds the index took after it to hold every vector (at shutdown). */
async function troupeImport(dir: string, made: readonly ImportItem[]): Promise<{ perSecond: number; indexMs: number }> {
  const rt = await createRuntime({
    model: new ScriptedModel([]),
    logger: silentLogger,
    ids: sequentialIds(),
    dataDir: dir,
    memory: { facts: { compressAbove: made.length + 1_000, keepTopN: Math.min(3_200, made.length + 1_000) } },
  });
  const start = process.hrtime.bigint();
  await rt.importMemory('root', made);
  const perSecond = made.length / (elapsedMs(start) / 1000);
  const shutdown = process.hrtime.bigint();
  await rt.shutdown();
  return { perSecond, indexMs: elapsedMs(shutdown) };
}

/** The floor: the same texts embedded by the offline embedder and put as records in LMDB, 256 to a transaction. */
async function floor(dir: string, made: readonly ImportItem[]): Promise<number> {
  const root = open({ path: dir, noSubdir: false, maxDbs: 4 });
  const db = root.openDB<unknown>({ name: 'facts' });
  const embedder = new HashedNgramEmbedder();
  const start = process.hrtime.bigint();
  for (let i = 0; i < made.length; i += 256) {
    const batch = made.slice(i, i + 256);
    const vectors = await embedder.embed(batch.map((item) => item.text));
    let committed: Promise<unknown> = Promise.resolve();
    batch.forEach((item, j) => {
      committed = db.put(['root', i + j], { item, vector: Buffer.from((vectors[j] ?? new Float32Array()).buffer) });
    });
    await committed;
    await root.flushed;
  }
  const perSecond = made.length / (elapsedMs(start) / 1000);
  await root.close();
  return perSecond;
}

export async function memoryImport(): Promise<Row[]> {
  const base = await mkdtemp(join(tmpdir(), 'troupe-bench-import-'));
  try {
    const rows: Row[] = [];
    for (const [kind, made] of [
      ['turns', turns(items)],
      ['facts', facts(items)],
    ] as const) {
      const troupe = await troupeImport(join(base, `${kind}-troupe`), made);
      const raw = await floor(join(base, `${kind}-raw`), made);
      rows.push({
        benchmark: `rt.importMemory: ${items.toLocaleString('en')} ${kind} into an agent on a data dir (to durable)`,
        troupe: rate(troupe.perSecond, 'items'),
        raw: rate(raw, 'items'),
        ratio: raw / troupe.perSecond,
        notes:
          `raw: the offline embedder and one lmdb put a record, 256 a transaction, each flushed; ` +
          (kind === 'turns' ? '' : `each fact is searched for a near-duplicate among the facts held before the import, and by its text among the import's; `) +
          `the vectors go into hnswlib after the import (searches compare with them until then): that took ${(troupe.indexMs / 1000).toFixed(1)} s more, waited for at shutdown; ` +
          `goal ≥ 5,000 items/s: ${troupe.perSecond >= 5_000 ? 'met' : 'NOT met'} in this run`,
      });
    }
    return rows;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

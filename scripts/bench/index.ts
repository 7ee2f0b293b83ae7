/**
 * `npm run bench`: troupe's bus, agent mailboxes and spawning against bare RxJS and XState, and a
 * tool loop through the whole runtime against a hand-written one, the HTTP API against bare
 * Fastify, L4 memory's vector index against exact search, and a turn's context built from memory
 * against tokenising it, and the NATS transport against the raw NATS client, printed as one markdown table.
 * BENCH_ONLY=<text> runs only the suites whose name contains it.
 * Progress goes to stderr (with every round's time when BENCH_VERBOSE=1), so stdout holds only the report.
 */
import { cpus, loadavg } from 'node:os';
import { actorDelivery } from './actorDelivery.js';
import { busDelivery } from './busDelivery.js';
import { contextBuild } from './contextBuild.js';
import { httpService } from './httpService.js';
import { l4Vectors } from './l4Vectors.js';
import { natsTransport } from './natsTransport.js';
import { elapsedMs, gcSource } from './measure.js';
import { orgStoreSuite } from './orgStore.js';
import { reactLatency } from './reactLatency.js';
import { reactLoop } from './reactLoop.js';
import { reactMachinery } from './reactMachinery.js';
import { type Row, markdownTable } from './report.js';
import { sessionLanes } from './sessionLanes.js';
import { spawnSuite } from './spawn.js';

const suites: readonly { readonly name: string; readonly run: () => Promise<Row[]> }[] = [
  { name: 'bus delivery', run: busDelivery },
  { name: 'actor delivery', run: actorDelivery },
  { name: 'spawn', run: spawnSuite },
  { name: 'ReAct loop', run: reactLoop },
  { name: 'ReAct with a slow model', run: reactLatency },
  { name: 'ReAct machinery', run: reactMachinery },
  { name: 'org store', run: orgStoreSuite },
  { name: 'HTTP service', run: httpService },
  { name: 'L4 vectors', run: l4Vectors },
  { name: 'context build', run: contextBuild },
  { name: 'session lanes', run: sessionLanes },
  { name: 'NATS transport', run: natsTransport },
];

function header(): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  const [load] = loadavg();
  return [
    `node ${process.version}`,
    new Date().toISOString().slice(0, 10),
    `${model} (${cores.length} cores)`,
    `load avg at start ${load?.toFixed(2) ?? 'n/a'}`,
    `gc: ${gcSource}`,
  ].join(' · ');
}

async function main(): Promise<void> {
  const head = header();
  const started = process.hrtime.bigint();
  const rows: Row[] = [];
  // BENCH_ONLY=<words> runs only the suites whose name contains them (e.g. BENCH_ONLY=react).
  const only = process.env['BENCH_ONLY']?.toLowerCase();
  for (const suite of suites.filter((candidate) => only === undefined || candidate.name.toLowerCase().includes(only))) {
    process.stderr.write(`bench: ${suite.name}…\n`);
    rows.push(...(await suite.run()));
  }
  const seconds = (elapsedMs(started) / 1000).toFixed(1);
  process.stdout.write(`${head} · ran in ${seconds} s\n\n${markdownTable(rows)}\n`);
}

await main();

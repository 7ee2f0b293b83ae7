import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import { createRuntime, sequentialIds, systemClock } from '../../src/index.js';
import { ScriptedModel } from '../../src/llm/index.js';
import { type OrgStore, openOrgStore } from '../../src/org/index.js';
import { type Task, createTask } from '../../src/task/index.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { type Row, duration, rate } from './report.js';
import { silentLogger } from './silentLogger.js';

// Issue 4: durable organisation writes against raw lmdb puts with the same durability (each
// acknowledged only once committed and fsynced), and the time to restart on a big organisation.

const SEQUENTIAL = sized(1_500, 20);
const CONCURRENT = sized(20_000, 200);
const IN_FLIGHT = sized(100, 10);
const AGENTS = sized(10_000, 20);
const TASKS = sized(100_000, 200);
const SESSIONS = sized(1_000, 10);
/** Appends of each side's warm-up, before the timed ones. */
const WARMUP = sized(200, 10);
const RESTARTS = sized(3, 1);

const ids = sequentialIds();
const taskFor = (session: number, n: number): Task =>
  createTask(
    { from: 'user', to: `w-${n % AGENTS}`, action: 'execute', parameters: { text: `step ${n} of session ${session}` }, id: `s${session}-${n}` },
    { ids, clock: systemClock },
  );

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'troupe-bench-org-'));
}

/** Ops per second of `count` operations, at most `inFlight` at a time. */
async function throughput(count: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i += inFlight) {
    await Promise.all(Array.from({ length: Math.min(inFlight, count - i) }, (_, j) => op(i + j)));
  }
  return count / (elapsedMs(start) / 1000);
}

/** The baseline: lmdb opened as the store opens it, each put committed and fsynced before it resolves. */
async function rawStore(dir: string): Promise<{ root: RootDatabase; db: Database<unknown>; put: (key: [string, number], value: unknown) => Promise<void> }> {
  const root = open({ path: dir, noSubdir: false, maxDbs: 4 });
  const db = root.openDB<unknown>({ name: 'messages' });
  // lmdb's own put batches concurrent writes into one durable commit, as troupe's writer does.
  return {
    root,
    db,
    put: async (key, value) => {
      await db.put(key, value);
    },
  };
}

async function writeRates(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [label, count, inFlight] of [
    ['one at a time', SEQUENTIAL, 1],
    [`${IN_FLIGHT} in flight`, CONCURRENT, IN_FLIGHT],
  ] as const) {
    const troupeDir = await tempDir();
    const rawDir = await tempDir();
    const store = await openOrgStore({ dir: troupeDir, logger: silentLogger });
    const raw = await rawStore(rawDir);
    try {
      const tasks = Array.from({ length: count }, (_, i) => taskFor(i % SESSIONS, i));
      // Warm-up on both sides, then the same appends, raw first.
      await throughput(WARMUP, inFlight, (i) => raw.put(['warm', i], { v: 1, task: tasks[i] }));
      await throughput(WARMUP, inFlight, (i) => store.appendMessage('warm', tasks[i] as Task));
      const rawRate = await throughput(count, inFlight, (i) => raw.put([`s${i % SESSIONS}`, i], { v: 1, task: tasks[i] }));
      const troupeRate = await throughput(count, inFlight, (i) => store.appendMessage(`s${i % SESSIONS}`, tasks[i] as Task));
      rows.push({
        benchmark: `Durable message-log appends, ${label}`,
        troupe: rate(troupeRate, 'writes'),
        raw: rate(rawRate, 'writes'),
        ratio: rawRate / troupeRate,
        notes: `${count} Tasks appended to ${SESSIONS.toLocaleString('en')} task logs; troupe = OrgStore.appendMessage (zod check, sequence number from the in-flight view, async lmdb put committed and fsynced by lmdb's write thread); raw = lmdb \`db.put\` of the same record; each resolves only once committed and fsynced`,
      });
    } finally {
      await store.close();
      await raw.root.close();
      await rm(troupeDir, { recursive: true, force: true });
      await rm(rawDir, { recursive: true, force: true });
    }
  }
  return rows;
}

/** An organisation of AGENTS live agents (one role) and TASKS logged Tasks, written through the store. */
async function bigOrganisation(dir: string): Promise<void> {
  const store: OrgStore = await openOrgStore({ dir, logger: silentLogger });
  await store.createRole({ id: 'role-root', name: 'root', prompt: 'You run the society.', createdBy: 'user' });
  await store.createAgent({ id: 'root', roleId: 'role-root', parentAgentId: null });
  await store.createRole({ id: 'role-w', name: 'worker', prompt: 'You work.', createdBy: 'root' });
  await throughput(AGENTS, 1_000, (i) => store.createAgent({ id: `w-${i}`, roleId: 'role-w', parentAgentId: 'root' }));
  await throughput(TASKS, 2_000, (i) => store.appendMessage(`s${i % SESSIONS}`, taskFor(i % SESSIONS, i)));
  await store.close();
}

/** Reads every record of every sub-db without checking it: what opening costs before validation. */
function readEverything(dir: string): number {
  const root = open({ path: dir, noSubdir: false, maxDbs: 16 });
  let records = 0;
  for (const name of ['roles', 'agents', 'children', 'terminations', 'messages', 'conversations', 'inbox', 'mailboxes']) {
    for (const entry of root.openDB<unknown>({ name }).getRange()) if (entry.value !== undefined) records++;
  }
  void root.close();
  return records;
}

async function restart(): Promise<Row[]> {
  const dir = await tempDir();
  try {
    const built = process.hrtime.bigint();
    await bigOrganisation(dir);
    const buildMs = elapsedMs(built);
    const rawMs: number[] = [];
    const openMs: number[] = [];
    const runtimeMs: number[] = [];
    let records = 0;
    for (let round = 0; round < RESTARTS; round++) {
      let start = process.hrtime.bigint();
      records = readEverything(dir);
      rawMs.push(elapsedMs(start));
      start = process.hrtime.bigint();
      const store = await openOrgStore({ dir, logger: silentLogger });
      openMs.push(elapsedMs(start));
      const quarantined = store.quarantined().length;
      await store.close();
      if (quarantined > 0) throw new Error(`${quarantined} records quarantined in the benchmark's organisation`);
      start = process.hrtime.bigint();
      const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel([]), logger: silentLogger });
      runtimeMs.push(elapsedMs(start));
      const live = rt.agents().filter((agent) => agent.status === 'active').length;
      await rt.shutdown({ drainTimeoutMs: 0 });
      if (live !== AGENTS + 1) throw new Error(`restart restored ${live} agents, expected ${AGENTS + 1}`);
    }
    const common = `${AGENTS.toLocaleString('en')} live agents + ${TASKS.toLocaleString('en')} logged Tasks (${records.toLocaleString('en')} records, built in ${duration(buildMs)} through the store); median of ${RESTARTS}`;
    return [
      {
        benchmark: 'Reopen the org store (validate every record but the message log, checked when read)',
        troupe: duration(median(openMs)),
        raw: duration(median(rawMs)),
        ratio: median(openMs) / median(rawMs),
        notes: `${common}; troupe = openOrgStore (zod check of every record but the message log's values, whose keys only are checked; quarantine of bad ones); raw = lmdb open + read every record, unchecked`,
      },
      {
        benchmark: 'Restart a runtime on that organisation',
        troupe: duration(median(runtimeMs)),
        raw: duration(median(rawMs)),
        ratio: median(runtimeMs) / median(rawMs),
        notes: `${common}; troupe = createRuntime on the data dir until it resolves: store reopened and validated, an actor with its conversation and waiting Tasks for every live agent; raw as above`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function orgStoreSuite(): Promise<Row[]> {
  return [...(await writeRates()), ...(await restart())];
}

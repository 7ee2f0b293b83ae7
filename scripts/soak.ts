// A soak of `troupe serve`: a real server process on a fresh data dir, fed `rate` submits a
// second over HTTP for `minutes`, with its resident memory printed every `every` seconds. Users
// come back: each submit continues one of `sessions` sessions (round robin), so per-session
// memory and context are exercised as a chat service would. The offline model answers unless
// OPENAI_* points at a real one. Each sample gives the RSS, the store file's pages in it and the
// RSS without them, its anonymous part, and the live heap after a full GC (read through the
// server's inspector, on a loopback port of its own), and the data dir's size. Ends with a
// verdict on the memory that is the process's own (anonymous memory and the live heap; RSS also
// counts the store file's clean pages, which the kernel reclaims, so it is shown, not judged):
// flat once warm means the value at the end is within 10% of minute 5's.
//
//   node --import tsx scripts/soak.ts [minutes=60] [rate=10] [sessions=200] [every=60]

import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { inspectorUrlIn, liveHeapMb } from './liveHeap.js';

const [minutes, rate, sessions, every] = [60, 10, 200, 60].map((fallback, i) => {
  const text = process.argv[i + 2];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`soak: argument ${i + 1} must be a positive number, got ${String(text)}`);
  return value;
}) as [number, number, number, number];

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Resident memory of a process in MB, from /proc: all of it, its anonymous part (heap and native
 * allocations), and the pages of the org store's memory-mapped data file (`data.mdb`). Those
 * pages are the store on disk read through the map: they grow with the store up to its limits
 * (the message log's above all), are clean (lmdb writes with pwrite, not through the map), and the
 * kernel drops them under pressure, so they can never run the machine out of memory. The verdict
 * is given for RSS, for RSS without them, and for the anonymous part.
 */
async function residentMb(pid: number): Promise<{ rss: number; anon: number; storeFile: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  let mapping = '';
  let storeKb = 0;
  for (const line of (await readFile(`/proc/${pid}/smaps`, 'utf8')).split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) mapping = header[1] ?? '';
    else if (mapping.endsWith('/data.mdb') && line.startsWith('Rss:')) storeKb += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), storeFile: storeKb / 1024 };
}

/** The size in MB of the org store's data files under `dir` (lmdb's `data.mdb`, and the L4 index files beside it). */
async function storeMb(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes / 1024 / 1024;
}

/** Root's memory tiers, as `GET /api/agents/root/memory` counts them. */
async function rootTiers(url: string): Promise<string> {
  const reply = await fetch(`${url}/api/agents/root/memory`);
  const { counts } = (await reply.json()) as { counts?: { l1: number; l2: number; l3: number; l4: number } };
  return counts === undefined ? '?' : `${counts.l1} / ${counts.l2} / ${counts.l3} / ${counts.l4}`;
}

/** Starts `troupe serve` on `dataDir` and resolves with the process and the URL it listens on. */
function startServe(dataDir: string): Promise<{ child: ChildProcessByStdio<null, Readable, Readable>; url: string; inspector: string }> {
  // node itself, not the tsx binary (which runs the program in a child process), so `pid` is the server's.
  const child = spawn(
    process.execPath,
    ['--inspect=127.0.0.1:0', '--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--no-console'],
    {
      cwd: root,
      env: { ...process.env, TROUPE_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let partial = '';
    // The inspector says where it listens first; the HTTP API comes up after it.
    let inspector: string | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        inspector ??= inspectorUrlIn(line);
        const url = line.startsWith('{') ? (JSON.parse(line) as { msg?: string; url?: string }) : {};
        if (url.msg === 'HTTP API listening' && url.url !== undefined && inspector !== undefined) resolve({ child, url: url.url, inspector });
      }
    });
    child.on('exit', (code) => reject(new Error(`troupe serve exited (${String(code)}) before it listened`)));
  });
}

const dataDir = await mkdtemp(join(tmpdir(), 'troupe-soak-'));
const { child, url, inspector } = await startServe(dataDir);
const pid = child.pid ?? 0;
const started = Date.now();
const samples: { minute: number; rss: number; anon: number; storeFile: number; withoutStoreFile: number; heap: number; dataDir: number }[] = [];
let sent = 0;
let refused = 0;
let failed = 0;

console.log(`soak: troupe serve pid ${pid} at ${url}, data dir ${dataDir}; ${rate} submits/s over ${sessions} sessions for ${minutes} min`);
console.log(
  '| minute | RSS (MB) | store file pages (MB) | RSS without them (MB) | anonymous (MB) | live heap after GC (MB) | data dir (MB) | submits | refused (429/503) | root L1 / L2 / L3 / L4 |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');

const submit = async (n: number): Promise<void> => {
  const response = await fetch(`${url}/api/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: `soak request ${n}: write a haiku about rain`, sessionId: `soak-${n % sessions}` }),
  });
  await response.arrayBuffer();
  if (response.status === 429 || response.status === 503) refused++;
  else if (response.status !== 201) failed++;
};

/** Prints a row: the server's memory now, its store on disk, what was sent, root's tiers. */
async function takeSample(): Promise<void> {
  const resident = await residentMb(pid);
  const sample = {
    minute: (Date.now() - started) / 60_000,
    ...resident,
    withoutStoreFile: resident.rss - resident.storeFile,
    heap: await liveHeapMb(inspector),
    dataDir: await storeMb(dataDir),
  };
  samples.push(sample);
  const tiers = await rootTiers(url).catch(() => '?');
  const sizes = [sample.rss, sample.storeFile, sample.withoutStoreFile, sample.anon, sample.heap, sample.dataDir].map((mb) => mb.toFixed(0));
  const row = [sample.minute.toFixed(1), ...sizes, sent, refused, tiers];
  console.log(`| ${row.join(' | ')} |`);
}

// Submits are paced on the wall clock (this is a measurement, not a test) and not awaited in
// series, so a slow answer never lowers the rate; at most `rate * 10` are in flight.
const inFlight = new Set<Promise<void>>();
const end = started + minutes * 60_000;
let nextSample = started + every * 1000;
while (Date.now() < end) {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  while (sent < due && inFlight.size < rate * 10) {
    const request = submit(sent++).catch(() => {
      failed++;
    });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  if (Date.now() >= nextSample) {
    await takeSample();
    nextSample += every * 1000;
  }
  await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
}
await Promise.all(inFlight);
// The last sample at the end of the run, whenever the last periodic one fell.
await takeSample();
child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));
await rm(dataDir, { recursive: true, force: true });

const warm = samples.find((sample) => sample.minute >= Math.min(5, minutes / 2));
const last = samples.at(-1);
if (warm !== undefined && last !== undefined && last !== warm) {
  const names = { rss: 'RSS', withoutStoreFile: "RSS without the store file's pages", anon: 'anonymous memory', heap: 'live heap after GC' } as const;
  const judged = new Set(['anon', 'heap']);
  for (const part of ['rss', 'withoutStoreFile', 'anon', 'heap'] as const) {
    const growth = (last[part] - warm[part]) / warm[part];
    const verdict = Math.abs(growth) <= 0.1 ? 'flat (within 10%)' : 'NOT flat';
    console.log(
      `soak: ${names[part]} ${warm[part].toFixed(0)} MB at minute ${warm.minute.toFixed(1)} → ${last[part].toFixed(0)} MB at minute ${last.minute.toFixed(1)} ` +
        `(${(growth * 100).toFixed(1)}%): ${judged.has(part) ? verdict : `${verdict}, shown only`}`,
    );
  }
  console.log(
    `soak: data dir ${warm.dataDir.toFixed(0)} MB at minute ${warm.minute.toFixed(1)} → ${last.dataDir.toFixed(0)} MB at minute ${last.minute.toFixed(1)}`,
  );
  console.log(`soak: ${failed} submits failed`);
}

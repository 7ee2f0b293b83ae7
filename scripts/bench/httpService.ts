import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { inTurn, sized } from './benchSize.js';
import { type Row, duration, rate } from './report.js';

type Side = 'troupe' | 'troupe-memory-off' | 'troupe-durable' | 'bare';

/** How long autocannon hammers: seconds, or (in a smoke run) a number of requests. */
type Span = { readonly duration: number } | { readonly amount: number };

// Each measurement: 10 connections for 5 s after a 1 s warm-up, the load generator in this
// process and the server in a fresh one (2 cores here: one each, near enough).
const load: { readonly connections: number; readonly warmup: Span; readonly measured: Span } = sized(
  { connections: 10, warmup: { duration: 1 }, measured: { duration: 5 } },
  { connections: 2, warmup: { amount: 20 }, measured: { amount: 100 } },
);
const spanText = (span: Span): string => ('duration' in span ? `${span.duration} s` : `${span.amount} requests`);

const root = fileURLToPath(new URL('../..', import.meta.url));
const compiled = import.meta.url.endsWith('.js');
const workerScript = fileURLToPath(new URL(compiled ? 'httpServerWorker.js' : 'httpServerWorker.ts', import.meta.url));

/** The server's CPU time so far (user + system, µs), and with `idle` how long it stayed busy after being asked. */
interface CpuAnswer {
  readonly cpuMicros: number;
  readonly busyMs?: number;
}

interface Worker {
  readonly url: string;
  /** CPU time the server process has used so far. */
  cpu(): Promise<CpuAnswer>;
  /** The same, once the server is idle again: what a flood left it to do (memory compaction, indexing) is done. */
  cpuOnceIdle(): Promise<CpuAnswer>;
  stop(): Promise<void>;
}

function startWorker(side: Side): Promise<Worker> {
  const child = spawn(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), workerScript, side], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const stopped = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // The worker answers its commands in the order they came.
  const answers: ((answer: CpuAnswer) => void)[] = [];
  const ask = (command: 'cpu' | 'idle'): Promise<CpuAnswer> =>
    new Promise((answered) => {
      answers.push(answered);
      child.stdin.write(`${command}\n`);
    });
  return new Promise((resolve, reject) => {
    let pending = '';
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`${side} server exited with ${String(code)} before listening`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const answer = JSON.parse(line) as { url?: string } & Partial<CpuAnswer>;
        if (answer.cpuMicros !== undefined)
          answers.shift()?.({ cpuMicros: answer.cpuMicros, ...(answer.busyMs === undefined ? {} : { busyMs: answer.busyMs }) });
        if (answer.url === undefined) continue;
        resolve({
          url: answer.url,
          cpu: () => ask('cpu'),
          cpuOnceIdle: () => ask('idle'),
          stop: () => {
            child.stdin.end();
            return stopped;
          },
        });
      }
    });
  });
}

interface Figures {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  /** The server's CPU time per request: what the load generator and other processes take of the cores moves it far less than req/s. */
  readonly cpuMicrosPerRequest: number;
  /** The same counted until the server was idle again (with the work the flood left it), and how long after the flood that was. */
  readonly untilIdle: { readonly cpuMicrosPerRequest: number; readonly busyMs: number };
}

async function hammer(url: string, request: { method: 'GET' | 'POST'; path: string; body?: string }, span: Span): Promise<autocannon.Result> {
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    connections: load.connections,
    ...span,
    ...(request.body === undefined ? {} : { body: request.body, headers: { 'content-type': 'application/json' } }),
  });
  if (result.errors > 0 || result.non2xx > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${String(count)}× ${status}`);
    throw new Error(`${request.method} ${request.path}: ${result.errors} errors, ${result.non2xx} non-2xx replies (${statuses.join(', ')})`);
  }
  return result;
}

async function measure(side: Side, request: { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> {
  const worker = await startWorker(side);
  try {
    await hammer(worker.url, request, load.warmup);
    const before = await worker.cpu();
    const result = await hammer(worker.url, request, load.measured);
    const after = await worker.cpu();
    const idle = await worker.cpuOnceIdle();
    const perRequest = (answer: CpuAnswer): number => (answer.cpuMicros - before.cpuMicros) / result.requests.total;
    return {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      cpuMicrosPerRequest: perRequest(after),
      untilIdle: { cpuMicrosPerRequest: perRequest(idle), busyMs: idle.busyMs ?? 0 },
    };
  } finally {
    await worker.stop();
  }
}

const agents = { method: 'GET', path: '/api/agents' } as const;
const submit = { method: 'POST', path: '/api/submit', body: JSON.stringify({ text: 'write a haiku about rain' }) } as const;
const notes = `autocannon, ${load.connections} connections, ${spanText(load.measured)} after ${spanText(load.warmup)} of warm-up; server in its own process, its mailboxLimit and memory's maxBacklog raised so a flood is measured rather than refused; raw = bare Fastify answering a constant`;

/** What memory costs a submit: the default runtime against the same with memory off, in the same run (issue 33's goal: on ≥ 0.5× off). */
function memoryRows(on: Figures, off: Figures): Row[] {
  const ratio = off.requestsPerSecond / on.requestsPerSecond;
  const cpu = (figures: Figures): string => duration(figures.cpuMicrosPerRequest / 1000);
  return [
    {
      benchmark: 'HTTP POST /api/submit, memory on (the default) against off',
      troupe: rate(on.requestsPerSecond, 'req'),
      raw: rate(off.requestsPerSecond, 'req'),
      ratio,
      notes: `memory only, as above; off = the same runtime with no agent's memory fed (its bus drops memory's subscription), so nothing is kept, compacted or stored as a fact; server CPU per submit in the window ${cpu(on)} on, ${cpu(off)} off; goal on ≥ 0.5× off: ${ratio <= 2 ? 'met' : 'not met'}`,
    },
    {
      benchmark: 'HTTP POST /api/submit server CPU per submit until idle, memory on against off',
      troupe: duration(on.untilIdle.cpuMicrosPerRequest / 1000),
      raw: duration(off.untilIdle.cpuMicrosPerRequest / 1000),
      ratio: on.untilIdle.cpuMicrosPerRequest / off.untilIdle.cpuMicrosPerRequest,
      notes: `same runs; the server's CPU from the window's start until it used under 5 ms of CPU in 0.1 s, per submit of the window: what a flood costs once the work it left (compaction, vectors waiting for the index) is done; memory on was busy ${duration(on.untilIdle.busyMs)} after the window, off ${duration(off.untilIdle.busyMs)}`,
    },
  ];
}

/** `GET /api/agents` and `POST /api/submit` throughput and submit p99, against bare Fastify; and submits with memory on against off. */
export async function httpService(): Promise<Row[]> {
  const runs = [
    ['bare', agents],
    ['troupe', agents],
    ['bare', submit],
    ['troupe', submit],
    ['troupe-memory-off', submit],
    ['troupe-durable', submit],
  ] as const;
  const [bareAgents, troupeAgents, bareSubmit, troupeSubmit, memoryOffSubmit, durableSubmit] = await inTurn(runs, ([side, request]) => measure(side, request));
  return [
    {
      benchmark: 'HTTP GET /api/agents (11 agents)',
      troupe: rate(troupeAgents.requestsPerSecond, 'req'),
      raw: rate(bareAgents.requestsPerSecond, 'req'),
      ratio: bareAgents.requestsPerSecond / troupeAgents.requestsPerSecond,
      notes,
    },
    {
      benchmark: 'HTTP GET /api/agents server CPU per request',
      troupe: duration(troupeAgents.cpuMicrosPerRequest / 1000),
      raw: duration(bareAgents.cpuMicrosPerRequest / 1000),
      ratio: troupeAgents.cpuMicrosPerRequest / bareAgents.cpuMicrosPerRequest,
      notes: `same runs as the row above: the server process's user + system time over the ${spanText(load.measured)}, per request; moved much less than req/s by what else shares the cores`,
    },
    {
      benchmark: 'HTTP POST /api/submit (memory only)',
      troupe: rate(troupeSubmit.requestsPerSecond, 'req'),
      raw: rate(bareSubmit.requestsPerSecond, 'req'),
      ratio: bareSubmit.requestsPerSecond / troupeSubmit.requestsPerSecond,
      notes: `${notes}; each submit is a root turn on an instant model`,
    },
    {
      benchmark: 'HTTP POST /api/submit p99 latency (memory only)',
      troupe: duration(troupeSubmit.p99Ms),
      raw: duration(bareSubmit.p99Ms),
      ratio: troupeSubmit.p99Ms / Math.max(bareSubmit.p99Ms, 1),
      notes: 'same run as the row above; autocannon reports whole milliseconds (raw floored at 1 ms for the ratio)',
    },
    {
      benchmark: 'HTTP POST /api/submit (data dir, durable)',
      troupe: rate(durableSubmit.requestsPerSecond, 'req'),
      raw: rate(bareSubmit.requestsPerSecond, 'req'),
      ratio: bareSubmit.requestsPerSecond / durableSubmit.requestsPerSecond,
      notes: `p99 ${duration(durableSubmit.p99Ms)}; each submit waits for its fsync'd log write before 201`,
    },
    ...memoryRows(troupeSubmit, memoryOffSubmit),
  ];
}

import { type Runtime, createRuntime, sequentialIds } from '../../src/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { sized } from './benchSize.js';
import { elapsedMs, percentile } from './measure.js';
import { type Row, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

const AGENTS = sized(10_000, 50);
const rounds = sized({ warmup: 30, timed: 200 }, { warmup: 2, timed: 5 });
/** Issue 35's goal for a scrape of a 10,000-agent society. */
const goalP50Ms = 20;

/** Times each of `rounds.timed` calls of `run` after the warm-up ones, one at a time. */
async function timed(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < rounds.warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < rounds.timed; i++) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(elapsedMs(start));
  }
  return samples;
}

/** A GET of `path` read to its end; throws unless it is a 200. */
async function get(url: string, path: string): Promise<void> {
  const response = await fetch(`${url}${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
}

async function society(): Promise<Runtime> {
  const rt = await createRuntime({ model: new ScriptedModel([]), logger: silentLogger, ids: sequentialIds(), maxLiveAgents: AGENTS + 1 });
  await rt.createRole({ name: 'worker', prompt: 'You work.' });
  for (let i = 0; i < AGENTS; i++) await rt.spawn({ role: 'worker' });
  return rt;
}

/**
 * `GET /metrics` of a society of 10,000 agents (memory only, every agent live with its memory
 * open), beside `GET /health` (a bare route of the same server: what any request costs) and
 * `GET /api/agents` (a page of 100 agents), alternated request by request in one server, over
 * loopback, the client in the same process.
 */
export async function metricsScrape(): Promise<Row[]> {
  const rt = await society();
  const server = createHttpServer(rt);
  try {
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    const paths = ['/metrics', '/health', '/api/agents'] as const;
    const samples = new Map<string, number[]>(paths.map((path) => [path, []]));
    // Rounds interleaved, so a change in the machine's load falls on every path alike.
    for (let round = 0; round < 5; round++) {
      for (const path of paths) samples.get(path)?.push(...(await timed(() => get(url, path))));
    }
    const gauges = await timed(() => Promise.resolve(rt.gauges()));
    const p = (path: string, at: number): number => percentile(samples.get(path) ?? [], at);
    const scrape = p('/metrics', 50);
    const notes = `${AGENTS} agents; p99 ${duration(p('/metrics', 99))}; rt.gauges() alone p50 ${duration(percentile(gauges, 50))}`;
    return [
      {
        benchmark: `GET /metrics p50, ${AGENTS} agents, against GET /health`,
        troupe: duration(scrape),
        raw: duration(p('/health', 50)),
        ratio: scrape / p('/health', 50),
        notes: `${notes}; goal p50 ≤ ${goalP50Ms} ms: ${scrape <= goalP50Ms ? 'met' : 'not met'}`,
      },
      {
        benchmark: `GET /metrics p50, ${AGENTS} agents, against GET /api/agents (a page of 100)`,
        troupe: duration(scrape),
        raw: duration(p('/api/agents', 50)),
        ratio: scrape / p('/api/agents', 50),
        notes: `same run; /api/agents p99 ${duration(p('/api/agents', 99))}`,
      },
    ];
  } finally {
    await server.close();
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
}

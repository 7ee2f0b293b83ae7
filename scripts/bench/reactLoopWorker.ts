/**
 * One side of the ReAct-loop benchmark, alone in its own process so it has the JIT, heap and GC
 * to itself, as in an application that runs one loop or the other, never both:
 *
 *   node --import tsx scripts/bench/reactLoopWorker.ts troupe|troupe-fresh|troupe-disk|troupe-disk-read-only|troupe-fresh-disk|troupe-remote <rounds> <warmup>
 *   node --import tsx scripts/bench/reactLoopWorker.ts hand|hand-sse|hand-lmdb <rounds> <warmup> '{"system":"…","user":"…"}'
 *
 * BENCH_MODEL_DELAY_MS=<ms> makes the server pause that long between streamed chunks, a model
 * that takes time to answer (what persistence's commits overlap with). BENCH_MODEL_PROCESS=1 runs
 * the server in a process of its own (`modelServerWorker.ts`), as a real model is: its CPU is
 * then not the loop's.
 *
 * Starts its own local OpenAI-compatible server, runs the warm-up rounds, then the measured ones,
 * and prints one JSON `WorkerReport` on stdout (nothing else goes there). `troupe-disk` is the
 * troupe loop with a data dir (a fresh temp dir, removed at the end); `troupe-fresh` spawns its
 * agent, asks it and terminates it within each timed round, and `troupe-fresh-disk` does so with
 * a data dir. The hand-written loop
 * is given troupe's opening system and user messages, so both sides send the same first request.
 * `troupe-remote` runs the troupe loop on a bus over a nats-server of its own, its `echo` served
 * by a node in another process (`toolNodeWorker.ts`). `hand-lmdb` is the hand-written loop keeping
 * each step in an LMDB environment of its own (a fresh temp dir too) with raw lmdb puts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import * as thisBuildNodes from '../../src/nodes.js';
import { type MainThreadTimes, collect, elapsedMs, mainThreadTimes } from './measure.js';
import type { ChatRequest } from '../../src/index.js';
import { CALLS, type Opening, type WorkerReport } from './reactLoop.js';
import { type LoopPlacement, echoDescription, echoTool, echoParameters, handLoop, openHandStore, startLoopServer, troupeLoop } from './reactLoops.js';
import { startLineProcess, startReadyProcess } from './readyProcess.js';
import { NatsServer } from '../../test/support/natsServer.js';

const troupeSides = ['troupe', 'troupe-fresh', 'troupe-disk', 'troupe-disk-read-only', 'troupe-fresh-disk', 'troupe-remote'] as const;
type TroupeSide = (typeof troupeSides)[number];
const isTroupeSide = (side: string | undefined): side is TroupeSide => troupeSides.includes(side as TroupeSide);
const handSides = ['hand', 'hand-sse', 'hand-lmdb'] as const;
type HandSide = (typeof handSides)[number];
const isHandSide = (side: string | undefined): side is HandSide => handSides.includes(side as HandSide);
type Args = { side: TroupeSide; rounds: number; warmup: number } | { side: HandSide; rounds: number; warmup: number; opening: Opening };

function parseArgs([side, rounds, warmup, opening]: readonly string[]): Args {
  const count = (text: string | undefined, least: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < least) throw new Error(`reactLoopWorker: expected an integer ≥ ${least}, got ${String(text)}`);
    return value;
  };
  const counts = { rounds: count(rounds, 1), warmup: count(warmup, 0) };
  if (isTroupeSide(side)) return { side, ...counts };
  if (isHandSide(side) && opening !== undefined) return { side, ...counts, opening: JSON.parse(opening) as Opening };
  throw new Error(`usage: reactLoopWorker.ts ${troupeSides.join('|')} <rounds> <warmup> | ${handSides.join('|')} <rounds> <warmup> '{"system": …, "user": …}'`);
}

/** A nats-server, the node serving `echo` in its own process, and the loop's bus and remote `echo` (what they start is pushed on `stops`). */
async function remotePlacement(stops: (() => Promise<void>)[]): Promise<LoopPlacement> {
  const nats = await NatsServer.start();
  stops.push(() => nats.dispose());
  stops.push(await startReadyProcess('toolNodeWorker', [nats.url, 'bench']));
  const transport = await thisBuildNodes.connectNatsTransport({ servers: nats.url, society: 'bench', name: 'bench-react-loop' });
  const bus = new thisBuild.EventBus({ transport });
  const tool = thisBuildNodes.remoteTool({ name: 'echo', description: echoDescription, parameters: echoParameters, provider: 'tool-node' });
  return { bus, tool };
}

/** The model the loop talks to: its address, how many chat requests it has had and the first, and its stop. */
interface LoopModel {
  readonly baseURL: string;
  stats(): Promise<{ calls: number; firstRequest: ChatRequest | undefined }>;
  close(): Promise<void>;
}

/** The loop's model server, in this process or (`ownProcess`) in one of its own. */
async function startLoopModel(chunkDelayMs: number, ownProcess: boolean): Promise<LoopModel> {
  if (!ownProcess) {
    const { server, firstRequest } = await startLoopServer(chunkDelayMs);
    return { baseURL: server.baseURL, stats: () => Promise.resolve({ calls: server.chatCalls, firstRequest: firstRequest() }), close: () => server.close() };
  }
  const child = await startLineProcess('modelServerWorker', [String(chunkDelayMs)]);
  const { baseURL } = JSON.parse(child.ready) as { baseURL: string };
  return {
    baseURL,
    stats: async () => {
      const { calls, firstRequest } = JSON.parse(await child.ask('stats')) as { calls: number; firstRequest: ChatRequest | null };
      return { calls, firstRequest: firstRequest ?? undefined };
    },
    close: () => child.stop(),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { side, rounds, warmup } = args;
  // BENCH_MODEL_DELAY_MS: a pause between streamed chunks, for a model that is not instant.
  const server = await startLoopModel(Number(process.env['BENCH_MODEL_DELAY_MS'] ?? 0), process.env['BENCH_MODEL_PROCESS'] === '1');
  const msPerStepSamples: number[] = [];
  const cpuPerStepSamples: number[] = [];
  const onDisk = side === 'troupe-disk' || side === 'troupe-disk-read-only' || side === 'troupe-fresh-disk' || side === 'hand-lmdb';
  const dataDir = onDisk ? await mkdtemp(join(tmpdir(), 'troupe-bench-react-')) : null;
  // What troupe-remote started (the node, the nats-server) or hand-lmdb opened (its store), stopped last first.
  const stops: (() => Promise<void>)[] = [];
  let calls = 0;
  let opening: ChatRequest | undefined;
  // The main thread's scheduler times in the timed part of the measured rounds, summed (null without /proc).
  let main: MainThreadTimes | null = { cpuMs: 0, waitMs: 0 };
  try {
    const handStore = args.side === 'hand-lmdb' && dataDir !== null ? openHandStore(dataDir) : undefined;
    if (handStore !== undefined) stops.push(() => handStore.close());
    const loop =
      'opening' in args
        ? handLoop(server, args.opening, args.side === 'hand-sse' ? 'sse' : 'sdk', handStore)
        : await troupeLoop(
            server,
            thisBuild,
            dataDir,
            args.side === 'troupe-remote'
              ? await remotePlacement(stops)
              : args.side === 'troupe-disk-read-only'
                ? { tool: echoTool(thisBuild.defineTool, true) }
                : {},
            args.side === 'troupe-fresh' || args.side === 'troupe-fresh-disk' ? 'fresh' : 'ready',
          );
    try {
      for (let i = 0; i < warmup + rounds; i++) {
        // One full collection before the measured rounds, so they start from a clean heap.
        if (i === warmup) collect();
        await loop.setup();
        const before = (await server.stats()).calls;
        const mainStart = mainThreadTimes();
        const cpuStart = process.cpuUsage();
        const start = process.hrtime.bigint();
        const answer = await loop.run();
        const wallMs = elapsedMs(start);
        const cpu = process.cpuUsage(cpuStart);
        const mainEnd = mainThreadTimes();
        await loop.teardown();
        // Checked untimed, every round: 21 chat requests and the answer.
        const made = (await server.stats()).calls - before;
        if (made !== CALLS) throw new Error(`${side} loop made ${made} model calls in round ${i + 1}, expected ${CALLS}`);
        if (answer !== 'done') throw new Error(`${side} loop answered ${JSON.stringify(answer)} in round ${i + 1}, expected "done"`);
        if (i < warmup) continue;
        msPerStepSamples.push(wallMs / CALLS);
        // Process CPU time (ms), GC threads and the in-process server included.
        cpuPerStepSamples.push((cpu.user + cpu.system) / 1000 / CALLS);
        main =
          main === null || mainStart === null || mainEnd === null
            ? null
            : { cpuMs: main.cpuMs + mainEnd.cpuMs - mainStart.cpuMs, waitMs: main.waitMs + mainEnd.waitMs - mainStart.waitMs };
      }
    } finally {
      await loop.close();
    }
    ({ calls, firstRequest: opening } = await server.stats());
  } finally {
    await server.close();
    for (const stop of stops.reverse()) await stop();
    if (dataDir !== null) await rm(dataDir, { recursive: true, force: true });
  }
  if (opening === undefined) throw new Error(`${side} loop made no requests`);
  const steps = rounds * CALLS;
  const allCpuMs = cpuPerStepSamples.reduce((sum, perStep) => sum + perStep * CALLS, 0);
  const threadCpuPerStep =
    main === null ? null : { main: main.cpuMs / steps, others: Math.max(0, allCpuMs - main.cpuMs) / steps, mainWaiting: main.waitMs / steps };
  const report: WorkerReport = { msPerStepSamples, cpuPerStepSamples, threadCpuPerStep, calls, firstRequest: opening };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();

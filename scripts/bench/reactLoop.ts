import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { ChatRequest } from '../../src/index.js';
import { inTurn, sized } from './benchSize.js';
import { loopFigures } from './loopFigures.js';
import { median } from './measure.js';
import { type Row, times } from './report.js';

/** Tool steps per run; each run is STEPS model calls that call `echo`, then one that answers. */
export const STEPS = 20;
export const CALLS = STEPS + 1;
const GOAL = 1.2;
/** Issue 12: the same loop with a data dir. */
const DISK_GOAL = 1.3;
// A round is 21 local HTTP round trips (~20–40 ms here). In a fresh process both sides keep
// getting faster for ~150–200 rounds (JIT: troupe's larger body of code takes longer to
// optimise, ~1.5× slower around round 50 than at 250), so each process warms up for 200 rounds
// before its 50 measured ones. On a shared 2-core machine one process can run 20% slower than
// the next for no reason of its own (the same code, another layout in memory), so there are
// 6 blocks a side, alternated (8 with three sides took ~3 min; the fourth side, with a data dir,
// would make it ~4.5). With 5, one run's ratio ranged 1.05–1.33×.
const options = sized({ blocks: 6, warmup: 200, rounds: 50 }, { blocks: 1, warmup: 0, rounds: 1 });

/**
 * `hand` iterates the SDK's Stream (the goal's baseline); `hand-sse` reads the body with the
 * reader troupe's OpenAIModel uses, so troupe against it is the runtime's own cost alone;
 * `troupe-fresh` spawns its agent and terminates it within each timed round (a conversation);
 * `troupe-disk` is troupe with a data dir, every Task and step kept in the LMDB store (its echo
 * left to MCP's defaults: a tool that changes the world, so each step waits for the disk),
 * `troupe-disk-read-only` the same with echo declared read-only (its steps wait for nothing), and
 * `troupe-fresh-disk` troupe-fresh with one;
 * `troupe-remote` is troupe on a NATS bus with its `echo` served by another process (a node);
 * `hand-lmdb` is the hand-written loop keeping each step durably with raw lmdb puts.
 */
export type Side =
  'troupe' | 'troupe-fresh' | 'troupe-disk' | 'troupe-disk-read-only' | 'troupe-fresh-disk' | 'troupe-remote' | 'hand' | 'hand-sse' | 'hand-lmdb';
// troupe first: the others are checked against its opening request, and the hand-written loops given its messages.
const [first, ...others]: readonly ['troupe', ...Side[]] = [
  'troupe',
  'hand',
  'troupe-fresh',
  'troupe-disk',
  'troupe-disk-read-only',
  'troupe-fresh-disk',
  'hand-lmdb',
  'hand-sse',
  'troupe-remote',
];
const isTroupe = (side: Side): boolean => side.startsWith('troupe');

/** The system and user messages troupe opens with, given to the hand-written loop. */
export interface Opening {
  system: string;
  user: string;
}

/** What a `reactLoopWorker.ts` process prints on stdout, as one line of JSON. */
export interface WorkerReport {
  /** Wall time of each measured round ÷ CALLS (ms). */
  readonly msPerStepSamples: number[];
  /** Process CPU time (user + system, GC threads and the in-process server included) of each measured round ÷ CALLS (ms). */
  readonly cpuPerStepSamples: number[];
  /**
   * Process CPU time of the measured rounds' timed part ÷ (rounds × CALLS) (ms per step), split:
   * the main thread's and the other threads'; and the time the main thread was ready to run but
   * waited for a CPU (null without /proc schedstats).
   */
  readonly threadCpuPerStep: { readonly main: number; readonly others: number; readonly mainWaiting: number } | null;
  /** Chat requests the worker's server received over all rounds, warm-ups included. */
  readonly calls: number;
  /**
   * The first request of round 1. troupe's names the agent and task (`worker-1`, `t5`), so it is
   * the same in every troupe process (sequential ids) and later rounds differ only in those ids.
   */
  readonly firstRequest: ChatRequest;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
// `npm run bench` runs the compiled JavaScript, as an application would; run from source under
// tsx (whose closures each pay for a name-keeping call) the worker is TypeScript too.
const compiled = import.meta.url.endsWith('.js');
const workerScript = fileURLToPath(new URL(compiled ? 'reactLoopWorker.js' : 'reactLoopWorker.ts', import.meta.url));

/**
 * A guard against a hung worker, not a measure: 250 rounds of 21 steps with an fsync each took
 * over 120 s on a 2-core machine at load 20.
 */
const WORKER_TIMEOUT_MS = 600_000;

/** How many rounds a worker runs, and how long the model pauses between streamed chunks. */
export interface Schedule {
  readonly warmup: number;
  readonly rounds: number;
  readonly modelDelayMs?: number;
}

/** Runs one side in a fresh Node process (plain node on compiled code, else `--import tsx`); its stderr passes through. */
export function runWorker(side: Side, opening?: Opening, schedule: Schedule = options): Promise<WorkerReport> {
  const args = [...(compiled ? [] : ['--import', 'tsx']), workerScript, side, String(schedule.rounds), String(schedule.warmup)];
  if (opening !== undefined) args.push(JSON.stringify(opening));
  const env = { ...process.env, BENCH_MODEL_DELAY_MS: String(schedule.modelDelayMs ?? 0) };
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], timeout: WORKER_TIMEOUT_MS });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) {
        const timedOut = signal === 'SIGTERM' ? ` (killed after ${WORKER_TIMEOUT_MS / 1000} s, the guard against a hung worker)` : '';
        reject(new Error(`${side} worker exited with ${signal ?? `code ${String(code)}`}${timedOut}`));
        return;
      }
      try {
        const report = JSON.parse(stdout) as WorkerReport;
        const total = (schedule.warmup + schedule.rounds) * CALLS;
        if (report.calls !== total) throw new Error(`${side} worker made ${report.calls} chat requests, expected ${total} (${CALLS} a round)`);
        if (report.msPerStepSamples.length !== schedule.rounds || report.cpuPerStepSamples.length !== schedule.rounds) {
          throw new Error(`${side} worker reported ${report.msPerStepSamples.length} rounds, expected ${schedule.rounds}`);
        }
        resolve(report);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** The system and user messages of troupe's first request. */
export function openingOf(request: ChatRequest): Opening {
  const [system, user] = request.messages;
  if (system?.role !== 'system' || user?.role !== 'user') throw new Error('troupe loop did not open with a system and a user message');
  return { system: system.content, user: user.content };
}

/** Every side's reports, one a block, the sides alternated within each block. */
async function runBlocks(): Promise<Record<Side, WorkerReport[]>> {
  const blocks: Record<Side, WorkerReport[]> = {
    troupe: [],
    'troupe-fresh': [],
    'troupe-disk': [],
    'troupe-disk-read-only': [],
    'troupe-fresh-disk': [],
    'troupe-remote': [],
    hand: [],
    'hand-sse': [],
    'hand-lmdb': [],
  };
  let reference: ChatRequest | undefined;
  for (let block = 1; block <= options.blocks; block++) {
    const keep = (side: Side, report: WorkerReport, opening: ChatRequest): void => {
      // Same opening request on every side and in every block: same messages, same tool schema.
      if (!isDeepStrictEqual(report.firstRequest, opening)) throw new Error(`${side} loop (block ${block}) sent a different first request than troupe's first`);
      blocks[side].push(report);
      process.stderr.write(`  ${side} ${block}/${options.blocks}: ${median(report.msPerStepSamples).toFixed(3)} ms/step\n`);
    };
    const troupe = await runWorker(first);
    const opening = (reference ??= troupe.firstRequest);
    keep(first, troupe, opening);
    await inTurn(others, async (side) => keep(side, await runWorker(side, isTroupe(side) ? undefined : openingOf(opening)), opening));
  }
  return blocks;
}

/**
 * A 20-step ReAct loop through the whole runtime (agent actor, bus, conversation, retry layer,
 * OpenAIModel) against a minimal hand-written loop with the same `openai` client, each talking
 * to a local OpenAI-compatible server that answers at once. Each side runs alone in its own
 * process (sharing one would let each distort the other's JIT, heap and GC), in blocks
 * alternated troupe, hand, troupe, hand, … so drift in machine load reaches both alike.
 */
export async function reactLoop(): Promise<Row[]> {
  const blocks = await runBlocks();
  const { msPerStep, range, blockMedians, pairRatios, overhead, cpu, threads } = loopFigures(blocks, 'troupe');
  const diskRatio = msPerStep('troupe-disk') / msPerStep('hand');
  const readOnlyDiskRatio = msPerStep('troupe-disk-read-only') / msPerStep('hand');
  const remoteRatio = msPerStep('troupe-remote') / msPerStep('hand');
  const rawDiskRatio = msPerStep('hand-lmdb') / msPerStep('hand');

  const ratio = msPerStep('troupe') / msPerStep('hand');
  const verdict = (of: number): string => (of <= GOAL ? `met in this run (${times(of)})` : `NOT met in this run (${times(of)})`);
  // A fresh agent per conversation against its loop with the agent spawned beforehand: what a spawn and a terminate add to a conversation, and as how many of that loop's steps.
  const freshRow = (fresh: 'troupe-fresh' | 'troupe-fresh-disk', ready: 'troupe' | 'troupe-disk'): Row => {
    const lifecycleMs = (msPerStep(fresh) - msPerStep(ready)) * CALLS;
    const disk = fresh === 'troupe-fresh-disk';
    return {
      benchmark: `ReAct loop, a fresh agent per conversation${disk ? ', data dir' : ''}: spawn, ${STEPS} echo tool steps + answer, terminate (per model call)`,
      troupe: `${msPerStep(fresh).toFixed(2)} ms/step`,
      raw: `${msPerStep('hand').toFixed(2)} ms/step`,
      ratio: msPerStep(fresh) / msPerStep('hand'),
      notes: `the loop people write: the ${ready} loop${disk ? " (data dir, every record and the agent's memory kept in the store)" : " (memory-only: the agent's memory on, in memory)"} with rt.spawn before rt.send and await rt.terminate after the answer inside each timed round, ms per step = round ÷ ${CALLS}; against the same hand-written loop: ${overhead('hand', fresh)}; the spawn and terminate add ${lifecycleMs.toFixed(2)} ms a conversation to ${ready}'s, as much as ${(lifecycleMs / msPerStep(ready)).toFixed(1)} of its steps; ${disk ? `against hand-lmdb ${times(msPerStep(fresh) / msPerStep('hand-lmdb'))}; ` : ''}goal ≤ ${GOAL}×: ${verdict(msPerStep(fresh) / msPerStep('hand'))}; block medians (ms/step) ${fresh} ${blockMedians(fresh)}; ratio of each block pair ${pairRatios('hand', fresh)}; process CPU time per step: ${cpu('hand', fresh)}`,
    };
  };
  const measured = options.blocks * options.rounds;
  return [
    {
      benchmark: `ReAct loop: ${STEPS} echo tool steps + answer, local OpenAI-compatible server (per model call)`,
      troupe: `${msPerStep('troupe').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand').toFixed(2)} ms/step`,
      ratio,
      notes: `each side in its own process, blocks alternated (${[first, ...others].join(', ')} × ${options.blocks}), each block ${options.warmup} warm-up rounds then ${options.rounds} measured; median of all ${measured} measured rounds a side; ms per step = round ÷ ${CALLS} model calls (${STEPS} tool steps + the answer); troupe = rt.send → waitForAnswer through agent actor, bus, conversation, retry layer, OpenAIModel (streaming, body read by CompletionChunks); raw = hand-written loop, same openai client, messages, tools and streaming, iterating the SDK's Stream; server ${process.env['BENCH_MODEL_PROCESS'] === '1' ? 'in a process of its own (BENCH_MODEL_PROCESS=1)' : 'in the same process'}, zero latency; goal ≤ ${GOAL}×: ${verdict(ratio)}`,
    },
    freshRow('troupe-fresh', 'troupe'),
    freshRow('troupe-fresh-disk', 'troupe-disk'),
    {
      benchmark: 'ReAct loop: troupe overhead per step',
      troupe: overhead('hand'),
      raw: '—',
      ratio: Number.NaN,
      notes: `(troupe − raw) per step, from the medians above: the runtime's cost less what troupe saves by reading the body itself (next row); block medians (ms/step) troupe ${blockMedians('troupe')}, raw ${blockMedians('hand')}; ratio of each block pair ${pairRatios('hand')}; rounds (ms/step) troupe ${range('troupe')}, raw ${range('hand')}; process CPU time per step (median, less disturbed by other load): ${cpu('hand')}`,
    },
    {
      benchmark: 'ReAct loop: troupe against a hand-written loop reading the body as troupe does',
      troupe: `${msPerStep('troupe').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand-sse').toFixed(2)} ms/step`,
      ratio: msPerStep('troupe') / msPerStep('hand-sse'),
      notes: `the same hand-written loop, reading each streamed body with CompletionChunks (eventsource-parser) instead of the SDK's Stream, so the difference is the runtime's own cost alone: ${overhead('hand-sse')}; the SDK's Stream costs the plain loop ${((msPerStep('hand') - msPerStep('hand-sse')) * 1000).toFixed(0)} µs/step more; block medians (ms/step) hand-sse ${blockMedians('hand-sse')}; ratio of each block pair ${pairRatios('hand-sse')}; process CPU time per step: ${cpu('hand-sse')}`,
    },
    {
      benchmark: 'ReAct loop with a data dir (LMDB store on)',
      troupe: `${msPerStep('troupe-disk').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand').toFixed(2)} ms/step`,
      ratio: diskRatio,
      notes: `the troupe loop above with createRuntime({ dataDir }) (a fresh temp dir per process): every Task logged, every conversation step and waiting record kept durably in the org store; against the same hand-written loop (which keeps nothing): ${overhead('hand', 'troupe-disk')}, of which persistence ${overhead('troupe', 'troupe-disk')}; goal ≤ ${DISK_GOAL}×: ${diskRatio <= DISK_GOAL ? 'met' : 'NOT met'} in this run; block medians (ms/step) troupe-disk ${blockMedians('troupe-disk')}; ratio of each block pair ${pairRatios('hand', 'troupe-disk')}; rounds (ms/step) ${range('troupe-disk')}; process CPU time per step: ${cpu('hand', 'troupe-disk')}; the same by thread: ${threads('troupe-disk')}, ${threads('troupe')}`,
    },
    {
      benchmark: 'ReAct loop with a data dir, its tool read-only',
      troupe: `${msPerStep('troupe-disk-read-only').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand').toFixed(2)} ms/step`,
      ratio: readOnlyDiskRatio,
      notes: `the data-dir loop above with echo declared read-only (annotations: { readOnly: true }): a step whose tools are all read-only or idempotent waits for no fsync, its records joining the next commit, and the answer still waits for everything; against the same hand-written loop: ${overhead('hand', 'troupe-disk-read-only')}; against echo left to the defaults ${times(msPerStep('troupe-disk-read-only') / msPerStep('troupe-disk'))}; goal ≤ ${DISK_GOAL}×: ${readOnlyDiskRatio <= DISK_GOAL ? 'met' : 'NOT met'} in this run; block medians (ms/step) ${blockMedians('troupe-disk-read-only')}; ratio of each block pair ${pairRatios('hand', 'troupe-disk-read-only')}; process CPU time per step: ${cpu('hand', 'troupe-disk-read-only')}`,
    },
    {
      benchmark: 'ReAct loop with a data dir, against a hand-written loop keeping each step in LMDB',
      troupe: `${msPerStep('troupe-disk').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand-lmdb').toFixed(2)} ms/step`,
      ratio: msPerStep('troupe-disk') / msPerStep('hand-lmdb'),
      notes: `raw = the hand-written loop with the same guarantees kept by raw lmdb puts (lmdb's defaults, one database): the opening on disk before the first call, each step's reply and results put and flushed (fsynced) before the next tool runs, overlapping the next model call, the answer on disk before it is returned; that alone is ${times(rawDiskRatio)} the hand-written loop (${overhead('hand', 'hand-lmdb')}), the floor any loop that fsyncs each step pays on this machine; troupe's data dir costs ${overhead('troupe', 'troupe-disk')} over memory-only, raw lmdb ${overhead('hand', 'hand-lmdb')} over nothing; block medians (ms/step) hand-lmdb ${blockMedians('hand-lmdb')}; ratio of each block pair ${pairRatios('hand-lmdb', 'troupe-disk')}; process CPU time per step: ${cpu('hand-lmdb', 'troupe-disk')}`,
    },
    {
      benchmark: 'ReAct loop with its tool on another node (NATS)',
      troupe: `${msPerStep('troupe-remote').toFixed(2)} ms/step`,
      raw: `${msPerStep('hand').toFixed(2)} ms/step`,
      ratio: remoteRatio,
      notes: `the troupe loop on a bus over a local nats-server, its echo a remoteTool served by serveTools in a NodeHost in another process: each tool step is a tools.call request and its reply across processes; against the hand-written loop calling echo in-process: ${overhead('hand', 'troupe-remote')}, of which the remote tool and NATS ${overhead('troupe', 'troupe-remote')}; block medians (ms/step) ${blockMedians('troupe-remote')}; ratio of each block pair ${pairRatios('hand', 'troupe-remote')}; process CPU time per step (the loop's process only): ${cpu('hand', 'troupe-remote')}`,
    },
  ];
}

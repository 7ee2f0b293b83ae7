import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One timed round: `setup` and `teardown` are not timed, `run` is. */
export interface Round<S> {
  setup?: () => S | Promise<S>;
  run: (state: S) => void | Promise<void>;
  teardown?: (state: S) => void | Promise<void>;
}

export interface MeasureOptions {
  /** Untimed rounds first, so the JIT has seen the code. */
  readonly warmup: number;
  readonly rounds: number;
  /** Force a full collection before every round, not only before the first. */
  readonly gcEachRound?: boolean;
}

/** Wall time of each timed round, in milliseconds. */
export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly samplesMs: readonly number[];
}

type GcSource = 'exposed' | 'v8 flag' | 'unavailable';

// `--expose-gc` is not required: without it, V8's flag is set at run time and `gc` fetched from
// a fresh context (Node documents this as best effort). Heap figures say when neither worked.
const found = ((): { gc: (() => void) | undefined; source: GcSource } => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return { gc: exposed, source: 'exposed' };
  try {
    setFlagsFromString('--expose-gc');
    const fresh: unknown = runInNewContext('gc');
    if (typeof fresh === 'function') return { gc: fresh as () => void, source: 'v8 flag' };
  } catch {
    // Fall through: heap deltas are then taken without a collection.
  }
  return { gc: undefined, source: 'unavailable' };
})();

/** How a full collection is reached, for the report header. */
export const gcSource: GcSource = found.source;

/** Runs a full collection when one can be forced; returns whether it ran. */
export function collect(): boolean {
  if (found.gc === undefined) return false;
  found.gc();
  return true;
}

/** Milliseconds between two `process.hrtime.bigint()` readings. */
export function elapsedMs(start: bigint, end: bigint = process.hrtime.bigint()): number {
  return Number(end - start) / 1e6;
}

/** The sample at percentile `p` (0–100) of `samples`, nearest rank; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/**
 * Warms up, then times `rounds` rounds of each of `a` and `b`, alternating them so a change in
 * machine load hits both sides alike, and reports the median of each. Garbage is collected
 * before the first round, and before every round when `gcEachRound` is set (for rounds that
 * leave much behind; a forced full collection costs ~50–100 ms here, so not by default).
 */
export async function compare<A, B>(a: Round<A>, b: Round<B>, options: MeasureOptions): Promise<[Timing, Timing]> {
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  collect();
  for (let i = 0; i < options.warmup + options.rounds; i++) {
    const tookA = await timeRound(a, options);
    const tookB = await timeRound(b, options);
    if (i < options.warmup) continue;
    samplesA.push(tookA);
    samplesB.push(tookB);
  }
  return [summarise(samplesA), summarise(samplesB)];
}

async function timeRound<S>(round: Round<S>, options: MeasureOptions): Promise<number> {
  const state = (await round.setup?.()) as S;
  if (options.gcEachRound === true) collect();
  const start = process.hrtime.bigint();
  await round.run(state);
  const took = elapsedMs(start);
  await round.teardown?.(state);
  return took;
}

/** Median, extremes and the samples themselves (echoed to stderr when BENCH_VERBOSE=1). */
function summarise(samples: readonly number[]): Timing {
  if (process.env['BENCH_VERBOSE'] === '1') {
    process.stderr.write(`  rounds (ms): ${samples.map((ms) => ms.toFixed(1)).join(', ')}\n`);
  }
  return { medianMs: median(samples), minMs: Math.min(...samples), maxMs: Math.max(...samples), samplesMs: samples };
}

/** Operations per second for `ops` operations done in `ms`. */
export function opsPerSecond(ops: number, ms: number): number {
  return (ops / ms) * 1000;
}

/** Resolves after pending promise jobs and one turn of the event loop. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What the scheduler says of the main thread so far (ms): time on a CPU, and time ready to run but waiting for one. */
export interface MainThreadTimes {
  readonly cpuMs: number;
  readonly waitMs: number;
}

/**
 * The main thread's scheduler times, from /proc (Linux with schedstats; null elsewhere), in
 * nanoseconds unlike its tick-counted utime and stime. Against the process's `process.cpuUsage()`
 * the CPU time says how much work ran on other threads (lmdb's write thread, the kernel's fsync
 * on its behalf, V8's GC helpers); the wait says how long the main thread was held up by them
 * or by anything else on the machine.
 */
export function mainThreadTimes(): MainThreadTimes | null {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    if (onCpu === undefined || waiting === undefined || !Number.isFinite(onCpu) || !Number.isFinite(waiting)) return null;
    return { cpuMs: onCpu / 1e6, waitMs: waiting / 1e6 };
  } catch {
    return null;
  }
}

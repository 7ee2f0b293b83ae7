/**
 * Rounds of several ReAct loops in one process, alternated round after round, for the
 * same-process A/Bs (`reactAB.ts`, `persistenceAB.ts`): sides that share the JIT, the heap and
 * the machine's mood of the moment, so a difference between them is far steadier than between
 * separate processes.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatRequest } from '../../src/index.js';
import { elapsedMs, median } from './measure.js';
import { CALLS, openingOf } from './reactLoop.js';
import { type HandStore, type Loop, handLoop } from './reactLoops.js';

/** Per side, one sample per measured round: wall and process CPU time, in µs per model call. */
export type RoundSamples<S extends string> = Record<S, { wall: number[]; cpu: number[] }>;

/** Every order of `sides` (n! of them): cycled through, each side follows each other equally often, as a side inherits the garbage of the one before it. */
function orders<S>(sides: readonly S[]): S[][] {
  if (sides.length <= 1) return [[...sides]];
  return sides.flatMap((first, i) => orders([...sides.slice(0, i), ...sides.slice(i + 1)]).map((rest) => [first, ...rest]));
}

/**
 * Runs `warmup` and then `rounds` rounds of every side (`loopOf` gives a side's loop when its
 * turn comes), setup and teardown untimed, and checks that each round made CALLS model calls on
 * `server`.
 */
export async function alternateRounds<S extends string>(
  sides: readonly S[],
  loopOf: (side: S) => Loop,
  server: { readonly chatCalls: number },
  { rounds, warmup }: { readonly rounds: number; readonly warmup: number },
): Promise<RoundSamples<S>> {
  const cycle = orders(sides);
  const samples = Object.fromEntries(sides.map((side) => [side, { wall: [], cpu: [] }])) as unknown as RoundSamples<S>;
  for (let round = 0; round < warmup + rounds; round++) {
    for (const side of cycle[round % cycle.length] ?? []) {
      const loop = loopOf(side);
      await loop.setup();
      const before = server.chatCalls;
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      await loop.run();
      const wallMs = elapsedMs(start);
      const used = process.cpuUsage(cpuStart);
      await loop.teardown();
      if (server.chatCalls - before !== CALLS) throw new Error(`${side} made ${server.chatCalls - before} model calls, expected ${CALLS}`);
      if (round < warmup) continue;
      samples[side].wall.push((wallMs * 1000) / CALLS);
      samples[side].cpu.push((used.user + used.system) / CALLS);
    }
  }
  return samples;
}

/** A markdown table of each side's median wall and process CPU (µs per model call), and its wall ÷ `against`'s. */
export function roundsTable<S extends string>(samples: RoundSamples<S>, sides: readonly S[], against: S): string {
  const base = median(samples[against].wall);
  const rows = sides.map((side) => {
    const { wall, cpu } = samples[side];
    return `| ${side} | ${median(wall).toFixed(0)} | ${(median(wall) / base).toFixed(3)}× | ${median(cpu).toFixed(0)} |`;
  });
  return [`| side | wall | ÷ ${against} | process CPU |`, '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The median of the rounds' differences `later − earlier` (µs per model call): steadier than a difference of medians. */
export function pairedMedian(later: readonly number[], earlier: readonly number[]): number {
  return median(later.map((value, i) => value - (earlier[i] ?? Number.NaN)));
}

/** A whole-number command-line argument of a script (`fallback` when absent), refused with its name otherwise. */
export function wholeArgument(script: string, text: string | undefined, fallback: number, least: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) throw new Error(`${script}: expected an integer ≥ ${least}, got ${text}`);
  return value;
}

/** Another checkout's build of troupe (built with tsconfig.bench.json), the A of a script's A/B. */
export async function baselineBuild<T>(script: string, baselineDir: string): Promise<T> {
  const entry = resolve(baselineDir, 'build/bench/src/index.js');
  return (await import(pathToFileURL(entry).href).catch((error: unknown) => {
    throw new Error(`${script}: cannot load the baseline build at ${entry} (${String(error)}); build it with tsc -p tsconfig.bench.json`);
  })) as T;
}

/**
 * The hand-written loop of an A/B, made once a troupe loop has run: it is given troupe's opening
 * messages (`firstRequest`); with a `store`, it keeps each step there (`handLoop`).
 */
export function handAfterTroupe(
  server: { readonly baseURL: string },
  firstRequest: () => ChatRequest | undefined,
  script: string,
  store?: HandStore,
): () => Loop {
  let hand: Loop | undefined;
  return () => {
    const opening = firstRequest();
    if (opening === undefined) throw new Error(`${script}: the hand-written loop ran before any troupe loop`);
    hand ??= handLoop(server, openingOf(opening), 'sdk', store);
    return hand;
  };
}

/**
 * A same-process A/B of the ReAct loop, for telling whether a change to troupe made a step
 * cheaper: this build (B) against another checkout's build (A) and the hand-written loop, in
 * one process on one server, round after round. The `npm run bench` figures come from separate
 * processes, each of which can run 20% slower than the next; here both builds share one
 * process, so a run is far steadier, though its B − A can still be ~20 µs a step off either
 * way: repeat it and trust a difference that keeps its sign. Not part of `npm run bench`:
 *
 *   git worktree add /tmp/base <commit>
 *   ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   (cd /tmp/base && npx tsc -p tsconfig.bench.json)
 *   npx tsc -p tsconfig.bench.json && node build/bench/scripts/bench/reactAB.js /tmp/base [rounds] [warmup]
 *
 * Rounds cycle through the 6 orders of the three sides, so each follows each other equally often
 * (a side inherits the garbage of the one before it).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as thisBuild from '../../src/index.js';
import { elapsedMs, median } from './measure.js';
import { CALLS, openingOf } from './reactLoop.js';
import { type Loop, type TroupeBuild, handLoop, startLoopServer, troupeLoop } from './reactLoops.js';

type Side = 'A' | 'B' | 'hand';
const orders: readonly (readonly Side[])[] = [
  ['A', 'B', 'hand'],
  ['A', 'hand', 'B'],
  ['B', 'A', 'hand'],
  ['B', 'hand', 'A'],
  ['hand', 'A', 'B'],
  ['hand', 'B', 'A'],
];

function count(text: string | undefined, fallback: number, least: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) throw new Error(`reactAB: expected an integer ≥ ${least}, got ${text}`);
  return value;
}

async function main(): Promise<void> {
  const [baselineDir, roundsText, warmupText] = process.argv.slice(2);
  if (baselineDir === undefined) throw new Error('usage: reactAB.js <baseline checkout, built with tsconfig.bench.json> [rounds=300] [warmup=150]');
  const rounds = count(roundsText, 300, 1);
  const warmup = count(warmupText, 150, 0);
  const entry = resolve(baselineDir, 'build/bench/src/index.js');
  const baseline = (await import(pathToFileURL(entry).href).catch((error: unknown) => {
    throw new Error(`reactAB: cannot load the baseline build at ${entry} (${String(error)}); build it with tsc -p tsconfig.bench.json`);
  })) as TroupeBuild;

  const { server, firstRequest } = await startLoopServer();
  try {
    const troupeLoops = { A: await troupeLoop(server, baseline), B: await troupeLoop(server, thisBuild) };
    // Made once a troupe loop has run (round 1 starts with A): it is given troupe's opening messages.
    let hand: Loop | undefined;
    const loopOf = (side: Side): Loop => {
      if (side !== 'hand') return troupeLoops[side];
      const opening = firstRequest();
      if (opening === undefined) throw new Error('reactAB: the hand-written loop ran before any troupe loop');
      hand ??= handLoop(server, openingOf(opening));
      return hand;
    };
    const wall: Record<Side, number[]> = { A: [], B: [], hand: [] };
    const cpu: Record<Side, number[]> = { A: [], B: [], hand: [] };
    for (let round = 0; round < warmup + rounds; round++) {
      for (const side of orders[round % orders.length] ?? []) {
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
        wall[side].push((wallMs * 1000) / CALLS);
        cpu[side].push((used.user + used.system) / CALLS);
      }
    }
    for (const loop of [troupeLoops.A, troupeLoops.B]) await loop.close();
    const handMedian = median(wall.hand);
    process.stdout.write(`A = ${baselineDir}, B = this build; ${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n`);
    process.stdout.write('| side | wall | ÷ hand | process CPU |\n| --- | --- | --- | --- |\n');
    for (const side of ['A', 'B', 'hand'] as const) {
      process.stdout.write(
        `| ${side} | ${median(wall[side]).toFixed(0)} | ${(median(wall[side]) / handMedian).toFixed(3)}× | ${median(cpu[side]).toFixed(0)} |\n`,
      );
    }
    const paired = wall.B.map((b, i) => b - (wall.A[i] ?? Number.NaN));
    process.stdout.write(`\nB − A: ${median(paired).toFixed(1)} µs per model call (median of the rounds' differences)\n`);
  } finally {
    await server.close();
  }
}

await main();

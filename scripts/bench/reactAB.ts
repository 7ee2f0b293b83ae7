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
 * Rounds cycle through the 6 orders of the three sides (`alternatedRounds.ts`).
 */
import * as thisBuild from '../../src/index.js';
import { alternateRounds, baselineBuild, handAfterTroupe, pairedMedian, roundsTable, wholeArgument } from './alternatedRounds.js';
import { type Loop, type TroupeBuild, startLoopServer, troupeLoop } from './reactLoops.js';

type Side = 'A' | 'B' | 'hand';

async function main(): Promise<void> {
  const [baselineDir, roundsText, warmupText] = process.argv.slice(2);
  if (baselineDir === undefined) throw new Error('usage: reactAB.js <baseline checkout, built with tsconfig.bench.json> [rounds=300] [warmup=150]');
  const rounds = wholeArgument('reactAB', roundsText, 300, 1);
  const warmup = wholeArgument('reactAB', warmupText, 150, 0);
  const baseline = await baselineBuild<TroupeBuild>('reactAB', baselineDir);

  const { server, firstRequest } = await startLoopServer();
  try {
    const troupeLoops = { A: await troupeLoop(server, baseline), B: await troupeLoop(server, thisBuild) };
    const hand = handAfterTroupe(server, firstRequest, 'reactAB');
    const loopOf = (side: Side): Loop => (side === 'hand' ? hand() : troupeLoops[side]);
    const samples = await alternateRounds<Side>(['A', 'B', 'hand'], loopOf, server, { rounds, warmup });
    for (const loop of [troupeLoops.A, troupeLoops.B]) await loop.close();
    process.stdout.write(`A = ${baselineDir}, B = this build; ${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n`);
    process.stdout.write(`${roundsTable(samples, ['A', 'B', 'hand'], 'hand')}\n`);
    process.stdout.write(`\nB − A: ${pairedMedian(samples.B.wall, samples.A.wall).toFixed(1)} µs per model call (median of the rounds' differences)\n`);
  } finally {
    await server.close();
  }
}

await main();

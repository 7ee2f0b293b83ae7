/**
 * What a spawn and a terminate add to a conversation, in one process: the ReAct loop with its
 * agent spawned before the round and terminated after it (untimed, `ready`) and with a fresh
 * agent spawned, asked and terminated inside the round (`fresh`), memory-only and with a data
 * dir (and the ready one with its tool declared read-only), beside the hand-written loop, round
 * after round on one server (`alternatedRounds.ts`).
 * `npm run bench`'s fresh-agent rows run each side in its own process, where one process can run
 * 20% slower than the next; here fresh − ready is the spawn's and the terminate's own cost. Not
 * part of `npm run bench`:
 *
 *   npx tsc -p tsconfig.bench.json && node build/bench/scripts/bench/freshAB.js [rounds=200] [warmup=100]
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import { alternateRounds, handAfterTroupe, pairedMedian, roundsTable, wholeArgument } from './alternatedRounds.js';
import { CALLS } from './reactLoop.js';
import { type Loop, echoTool, startLoopServer, troupeLoop } from './reactLoops.js';

type TroupeSide = 'ready' | 'fresh' | 'ready + data dir' | 'fresh + data dir' | 'ready + data dir, read-only tool';
type Side = TroupeSide | 'hand';

async function main(): Promise<void> {
  const [roundsText, warmupText] = process.argv.slice(2);
  const rounds = wholeArgument('freshAB', roundsText, 200, 1);
  const warmup = wholeArgument('freshAB', warmupText, 100, 0);
  const parentDir = await mkdtemp(join(tmpdir(), 'troupe-fresh-ab-'));
  const [readyDir, freshDir, readOnlyDir] = [join(parentDir, 'ready'), join(parentDir, 'fresh'), join(parentDir, 'read-only')];
  await Promise.all([mkdir(readyDir), mkdir(freshDir), mkdir(readOnlyDir)]);
  const { server, firstRequest } = await startLoopServer();
  try {
    const troupeLoops: Record<TroupeSide, Loop> = {
      ready: await troupeLoop(server, thisBuild),
      fresh: await troupeLoop(server, thisBuild, null, {}, 'fresh'),
      'ready + data dir': await troupeLoop(server, thisBuild, readyDir),
      'fresh + data dir': await troupeLoop(server, thisBuild, freshDir, {}, 'fresh'),
      'ready + data dir, read-only tool': await troupeLoop(server, thisBuild, readOnlyDir, { tool: echoTool(thisBuild.defineTool, true) }),
    };
    const hand = handAfterTroupe(server, firstRequest, 'freshAB');
    const sides: readonly Side[] = ['ready', 'fresh', 'ready + data dir', 'fresh + data dir', 'ready + data dir, read-only tool', 'hand'];
    const samples = await alternateRounds(sides, (side) => (side === 'hand' ? hand() : troupeLoops[side]), server, { rounds, warmup });
    for (const loop of Object.values(troupeLoops)) await loop.close();
    process.stdout.write(`${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n${roundsTable(samples, sides, 'hand')}\n\n`);
    // The paired median is per model call; a conversation is CALLS of them.
    const perConversation = (fresh: Side, ready: Side): string => `${((pairedMedian(samples[fresh].wall, samples[ready].wall) * CALLS) / 1000).toFixed(2)} ms`;
    process.stdout.write(`spawn + terminate, memory-only: ${perConversation('fresh', 'ready')} a conversation (median of the rounds' differences)\n`);
    process.stdout.write(`spawn + terminate, data dir: ${perConversation('fresh + data dir', 'ready + data dir')} a conversation\n`);
  } finally {
    await server.close();
    await rm(parentDir, { recursive: true, force: true });
  }
}

await main();

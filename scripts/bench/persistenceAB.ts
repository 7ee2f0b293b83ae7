/**
 * What a data dir costs the ReAct loop, in one process: this build memory-only, the same build
 * with a data dir (every Task logged, every step committed and fsynced before the next tool
 * runs), the hand-written loop, and the hand-written loop keeping each step with raw lmdb puts
 * under the same guarantees, round after round on one server (`alternatedRounds.ts`).
 * `npm run bench`'s data-dir row runs each side in its own process, where one process can run
 * 20% slower than the next; here the difference between the two troupe sides is the
 * persistence's own cost, and between the two hand-written sides raw lmdb's. Not part of
 * `npm run bench`:
 *
 *   npx tsc -p tsconfig.bench.json && node build/bench/scripts/bench/persistenceAB.js [rounds=200] [warmup=100] [parent of the data dir]
 *
 * The data dirs go in a fresh directory under the parent given (the system's temp dir by
 * default; `/dev/shm` puts them on tmpfs, where fsync writes nothing), removed at the end.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import { alternateRounds, handAfterTroupe, pairedMedian, roundsTable, wholeArgument } from './alternatedRounds.js';
import { type Loop, openHandStore, startLoopServer, troupeLoop } from './reactLoops.js';

type Side = 'memory' | 'data dir' | 'hand' | 'hand + lmdb';

async function main(): Promise<void> {
  const [roundsText, warmupText, parent = tmpdir()] = process.argv.slice(2);
  const rounds = wholeArgument('persistenceAB', roundsText, 200, 1);
  const warmup = wholeArgument('persistenceAB', warmupText, 100, 0);
  const parentDir = await mkdtemp(join(parent, 'troupe-persistence-ab-'));
  const [dataDir, handDir] = [join(parentDir, 'troupe'), join(parentDir, 'hand')];
  await Promise.all([mkdir(dataDir), mkdir(handDir)]);
  const { server, firstRequest } = await startLoopServer();
  const handStore = openHandStore(handDir);
  try {
    const troupeLoops = { memory: await troupeLoop(server, thisBuild), 'data dir': await troupeLoop(server, thisBuild, dataDir) };
    const hands = {
      hand: handAfterTroupe(server, firstRequest, 'persistenceAB'),
      'hand + lmdb': handAfterTroupe(server, firstRequest, 'persistenceAB', handStore),
    };
    const loopOf = (side: Side): Loop => (side === 'hand' || side === 'hand + lmdb' ? hands[side]() : troupeLoops[side]);
    const sides: readonly Side[] = ['memory', 'data dir', 'hand', 'hand + lmdb'];
    const samples = await alternateRounds(sides, loopOf, server, { rounds, warmup });
    for (const loop of Object.values(troupeLoops)) await loop.close();
    process.stdout.write(`data dirs in ${parentDir}; ${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n`);
    process.stdout.write(`${roundsTable(samples, sides, 'hand')}\n`);
    const cost = pairedMedian(samples['data dir'].wall, samples.memory.wall);
    const rawCost = pairedMedian(samples['hand + lmdb'].wall, samples.hand.wall);
    process.stdout.write(`\ndata dir − memory: ${cost.toFixed(1)} µs per model call (median of the rounds' differences)\n`);
    process.stdout.write(`hand + lmdb − hand: ${rawCost.toFixed(1)} µs per model call (the same guarantees with raw lmdb puts)\n`);
  } finally {
    await server.close();
    await handStore.close();
    await rm(parentDir, { recursive: true, force: true });
  }
}

await main();

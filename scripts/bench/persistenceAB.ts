/**
 * What a data dir costs the ReAct loop, in one process: this build memory-only, the same build
 * with a data dir (every Task logged, every step committed and fsynced before the next tool
 * runs) and the hand-written loop, round after round on one server (`alternatedRounds.ts`).
 * `npm run bench`'s data-dir row runs each side in its own process, where one process can run
 * 20% slower than the next; here the difference between the two troupe sides is the
 * persistence's own cost. Not part of `npm run bench`:
 *
 *   npx tsc -p tsconfig.bench.json && node build/bench/scripts/bench/persistenceAB.js [rounds=200] [warmup=100] [parent of the data dir]
 *
 * The data dir goes in a fresh directory under the parent given (the system's temp dir by
 * default; `/dev/shm` puts it on tmpfs, where fsync writes nothing), removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import { alternateRounds, handAfterTroupe, pairedMedian, roundsTable, wholeArgument } from './alternatedRounds.js';
import { type Loop, startLoopServer, troupeLoop } from './reactLoops.js';

type Side = 'memory' | 'data dir' | 'hand';

async function main(): Promise<void> {
  const [roundsText, warmupText, parent = tmpdir()] = process.argv.slice(2);
  const rounds = wholeArgument('persistenceAB', roundsText, 200, 1);
  const warmup = wholeArgument('persistenceAB', warmupText, 100, 0);
  const dataDir = await mkdtemp(join(parent, 'troupe-persistence-ab-'));
  const { server, firstRequest } = await startLoopServer();
  try {
    const troupeLoops = { memory: await troupeLoop(server, thisBuild), 'data dir': await troupeLoop(server, thisBuild, dataDir) };
    const hand = handAfterTroupe(server, firstRequest, 'persistenceAB');
    const loopOf = (side: Side): Loop => (side === 'hand' ? hand() : troupeLoops[side]);
    const sides: readonly Side[] = ['memory', 'data dir', 'hand'];
    const samples = await alternateRounds(sides, loopOf, server, { rounds, warmup });
    for (const loop of Object.values(troupeLoops)) await loop.close();
    process.stdout.write(`data dir in ${dataDir}; ${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n`);
    process.stdout.write(`${roundsTable(samples, sides, 'hand')}\n`);
    const cost = pairedMedian(samples['data dir'].wall, samples.memory.wall);
    process.stdout.write(`\ndata dir − memory: ${cost.toFixed(1)} µs per model call (median of the rounds' differences)\n`);
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

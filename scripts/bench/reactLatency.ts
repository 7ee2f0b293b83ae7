import { inTurn, sized } from './benchSize.js';
import { median } from './measure.js';
import { type Side, type WorkerReport, openingOf, runWorker } from './reactLoop.js';
import { type Row, times } from './report.js';

// A model that takes time: 1 ms between streamed chunks (about 8–9 ms a call here). Few rounds,
// as each is ~20 times longer than against the instant server.
const schedule = sized({ blocks: 2, warmup: 20, rounds: 30, modelDelayMs: 1 }, { blocks: 1, warmup: 0, rounds: 1, modelDelayMs: 1 });
// troupe first: the hand-written loops are given its opening messages.
const [first, ...others]: readonly ['troupe', ...Side[]] = ['troupe', 'hand', 'troupe-disk', 'hand-lmdb'];

/**
 * The ReAct loop against a model that is not instant: what persistence costs once its commits
 * can overlap a model call that takes longer than they do (against the instant server, the
 * commit outlasts the call and part of it is waited for).
 */
export async function reactLatency(): Promise<Row[]> {
  const blocks: Record<string, WorkerReport[]> = {};
  let opening: ReturnType<typeof openingOf> | undefined;
  for (let block = 1; block <= schedule.blocks; block++) {
    const keep = (side: Side, report: WorkerReport): void => {
      (blocks[side] ??= []).push(report);
      process.stderr.write(`  ${side} ${block}/${schedule.blocks}: ${median(report.msPerStepSamples).toFixed(3)} ms/step\n`);
    };
    const troupe = await runWorker(first, undefined, schedule);
    keep(first, troupe);
    const given = (opening ??= openingOf(troupe.firstRequest));
    await inTurn(others, async (side) => keep(side, await runWorker(side, side.startsWith('hand') ? given : undefined, schedule)));
  }
  const msPerStep = (side: Side): number => median((blocks[side] ?? []).flatMap((report) => report.msPerStepSamples));
  const [hand, memory, disk, rawDisk] = [msPerStep('hand'), msPerStep('troupe'), msPerStep('troupe-disk'), msPerStep('hand-lmdb')];
  return [
    {
      benchmark: 'ReAct loop with a data dir, against a model that takes time (per model call)',
      troupe: `${disk.toFixed(2)} ms/step`,
      raw: `${hand.toFixed(2)} ms/step`,
      ratio: disk / hand,
      notes: `the same loops with the server pausing ${schedule.modelDelayMs} ms between streamed chunks; blocks alternated (troupe, hand, troupe-disk, hand-lmdb × ${schedule.blocks}), each ${schedule.warmup} warm-up then ${schedule.rounds} measured rounds; troupe memory-only ${memory.toFixed(2)} ms/step (${times(memory / hand)}); the data dir's commits overlap the model call, so persistence costs ${((disk - memory) * 1000).toFixed(0)} µs/step here; the hand-written loop keeping each step with raw lmdb puts (hand-lmdb, as in the data-dir row above) ${rawDisk.toFixed(2)} ms/step (${times(rawDisk / hand)})`,
    },
  ];
}

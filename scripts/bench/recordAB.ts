/**
 * A same-process A/B of recording's cost, for telling whether a change to the recorder or the
 * replayer made it cheaper: the ReAct loop unrecorded and recorded, by another checkout's build
 * (A) and by this build (B), round after round on one server (`alternatedRounds.ts`); then runs
 * of 1,000 Tasks on the offline model, each recorded and replayed by A and by B in turn. Each
 * build is compared with itself (on ÷ off, replay ÷ run): two builds loaded side by side do not
 * run equally fast even when their code is the same, so A's figures against B's say little.
 * Not part of `npm run bench` (its `record and replay` suite gives the goals' figures):
 *
 *   git worktree add /tmp/base <commit>
 *   ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   (cd /tmp/base && npx tsc -p tsconfig.bench.json)
 *   npx tsc -p tsconfig.bench.json && node build/bench/scripts/bench/recordAB.js /tmp/base [rounds=150] [warmup=50] [runs=6]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import { alternateRounds, baselineBuild, pairedMedian, roundsTable, wholeArgument } from './alternatedRounds.js';
import { median } from './measure.js';
import { runAndReplay } from './recordReplay.js';
import { type Loop, startLoopServer, troupeLoop } from './reactLoops.js';

type Build = typeof thisBuild;
type Side = 'A off' | 'A on' | 'B off' | 'B on';

/** `build`, its runtimes recording to `file`. */
function recordingTo(build: Build, file: string): Build {
  return { ...build, createRuntime: (options) => build.createRuntime({ ...options, record: file }) };
}

async function main(): Promise<void> {
  const [baselineDir, roundsText, warmupText, runsText] = process.argv.slice(2);
  if (baselineDir === undefined) throw new Error('usage: recordAB.js <baseline checkout, built with tsconfig.bench.json> [rounds=150] [warmup=50] [runs=6]');
  const rounds = wholeArgument('recordAB', roundsText, 150, 1);
  const warmup = wholeArgument('recordAB', warmupText, 50, 0);
  const runs = wholeArgument('recordAB', runsText, 6, 0);
  const baseline = await baselineBuild<Build>('recordAB', baselineDir);
  const dir = await mkdtemp(join(tmpdir(), 'troupe-record-ab-'));
  const { server } = await startLoopServer();
  try {
    const loops: Record<Side, Loop> = {
      'A off': await troupeLoop(server, baseline),
      'A on': await troupeLoop(server, recordingTo(baseline, join(dir, 'a.jsonl'))),
      'B off': await troupeLoop(server, thisBuild),
      'B on': await troupeLoop(server, recordingTo(thisBuild, join(dir, 'b.jsonl'))),
    };
    const sides: readonly Side[] = ['A off', 'A on', 'B off', 'B on'];
    const samples = await alternateRounds(sides, (side) => loops[side], server, { rounds, warmup });
    for (const loop of Object.values(loops)) await loop.close();
    process.stdout.write(`A = ${baselineDir}, B = this build; ${rounds} measured rounds a side after ${warmup} warm-up, µs per model call (median)\n\n`);
    process.stdout.write(`${roundsTable(samples, sides, 'B off')}\n\n`);
    for (const build of ['A', 'B'] as const) {
      const [on, off] = [samples[`${build} on`].wall, samples[`${build} off`].wall];
      const cost = pairedMedian(on, off);
      process.stdout.write(
        `${build}: on − off ${cost.toFixed(1)} µs per model call (median of the rounds' differences), on ÷ off ${(median(on) / median(off)).toFixed(3)}×\n`,
      );
    }
  } finally {
    await server.close();
  }
  try {
    type Times = Record<'run' | 'replay' | 'runCpu' | 'replayCpu', number[]>;
    const times: Record<'A' | 'B', Times> = { A: { run: [], replay: [], runCpu: [], replayCpu: [] }, B: { run: [], replay: [], runCpu: [], replayCpu: [] } };
    for (let i = 0; i < runs; i++) {
      for (const side of i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
        const measured = await runAndReplay(side === 'A' ? baseline : thisBuild, join(dir, `${side}-run.jsonl`), 1000);
        if (i === 0) continue;
        times[side].run.push(measured.runMs);
        times[side].replay.push(measured.replayMs);
        times[side].runCpu.push(measured.runCpuMs);
        times[side].replayCpu.push(measured.replayCpuMs);
      }
    }
    if (runs > 1) {
      process.stdout.write(`\nruns of 1,000 Tasks, ${runs - 1} a side after one warm-up (median ms, wall and process CPU):\n\n`);
      process.stdout.write('| side | run | replay | replay ÷ run | run CPU | replay CPU | ÷ |\n| --- | --- | --- | --- | --- | --- | --- |\n');
      for (const side of ['A', 'B'] as const) {
        const [run, replay, runCpu, replayCpu] = [times[side].run, times[side].replay, times[side].runCpu, times[side].replayCpu].map(median) as [
          number,
          number,
          number,
          number,
        ];
        const row = [
          run.toFixed(1),
          replay.toFixed(1),
          `${(replay / run).toFixed(3)}×`,
          runCpu.toFixed(1),
          replayCpu.toFixed(1),
          `${(replayCpu / runCpu).toFixed(3)}×`,
        ];
        process.stdout.write(`| ${side} | ${row.join(' | ')} |\n`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

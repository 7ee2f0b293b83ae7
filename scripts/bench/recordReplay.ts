/**
 * Record and replay (docs/replay.md): the ReAct loop's step with the run recorded against the
 * same loop unrecorded, rounds alternated in one process; and a replay of a recorded run of
 * 1,000 Tasks against the run itself, on the offline model.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as thisBuild from '../../src/index.js';
import { alternateRounds } from './alternatedRounds.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { type Loop, startLoopServer, troupeLoop } from './reactLoops.js';
import { type Row, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

const schedule = sized({ rounds: 60, warmup: 20, tasks: 1000 }, { rounds: 2, warmup: 1, tasks: 30 });

/** Median µs per model call of the loop unrecorded and recorded, rounds alternated. */
async function stepCost(dir: string): Promise<{ off: number; on: number }> {
  const { server } = await startLoopServer();
  try {
    const recording: typeof thisBuild = { ...thisBuild, createRuntime: (options) => thisBuild.createRuntime({ ...options, record: join(dir, 'loop.jsonl') }) };
    const loops: Record<'off' | 'on', Loop> = { off: await troupeLoop(server, thisBuild), on: await troupeLoop(server, recording) };
    const samples = await alternateRounds(['off', 'on'], (side) => loops[side], server, schedule);
    for (const loop of Object.values(loops)) await loop.close();
    return { off: median(samples.off.wall), on: median(samples.on.wall) };
  } finally {
    await server.close();
  }
}

/** Records a run of at least `tasks` Tasks on the offline model (requirements one after another) by `build` to `file`, then replays it; both timed, wall and process CPU. */
export async function runAndReplay(
  build: typeof thisBuild,
  file: string,
  tasks: number,
): Promise<{ runMs: number; replayMs: number; runCpuMs: number; replayCpuMs: number; published: number }> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const rt = await build.createRuntime({ logger: silentLogger, record: file });
  let published = 0;
  rt.bus.on('*').subscribe(() => published++);
  while (published < tasks) {
    const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 60_000 });
    if (answer.status !== 'completed') throw new Error(`recordReplay: the run ended ${answer.status}`);
  }
  await rt.shutdown();
  const runMs = elapsedMs(start);
  const runCpu = process.cpuUsage(cpu);
  const replayStart = process.hrtime.bigint();
  const replayCpuStart = process.cpuUsage();
  const replay = await build.replayRuntime(file, { logger: silentLogger });
  const report = await replay.finished;
  const replayMs = elapsedMs(replayStart);
  const cpuMs = ({ user, system }: NodeJS.CpuUsage): number => (user + system) / 1000;
  return { runMs, replayMs, runCpuMs: cpuMs(runCpu), replayCpuMs: cpuMs(process.cpuUsage(replayCpuStart)), published: report.tasks };
}

export async function recordReplay(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-bench-replay-'));
  try {
    const step = await stepCost(dir);
    const run = await runAndReplay(thisBuild, join(dir, 'run.jsonl'), schedule.tasks);
    return [
      {
        benchmark: 'ReAct step with the run recorded (per model call)',
        troupe: duration(step.on / 1000),
        raw: duration(step.off / 1000),
        ratio: step.on / step.off,
        notes: `recording on against off in one process, rounds alternated (goal ≤ 1.1×); medians of ${schedule.rounds} rounds after ${schedule.warmup} warm-up`,
      },
      {
        benchmark: `replay of a recorded run of ${run.published} Tasks, offline model`,
        troupe: duration(run.replayMs),
        raw: duration(run.runMs),
        ratio: run.replayMs / run.runMs,
        notes: 'the replay (reading the recording, the Task log checked event for event) against the recorded run itself (goal < 1×)',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

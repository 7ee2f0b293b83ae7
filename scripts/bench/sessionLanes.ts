import { OpenAIModel, type Runtime, createRuntime } from '../../src/index.js';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { type Row, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

// Ten users at once on one agent, against a model that takes about 300 ms a call: the local
// OpenAI-compatible server pauses 75 ms before each of a short reply's four streamed chunks (role,
// text, finish, usage), and troupe calls it through the `openai` package. One session alone is the
// baseline, measured in the same run; rounds alternate one and ten.
const schedule = sized({ warmup: 1, rounds: 5, sessions: 10, chunkDelayMs: 75 }, { warmup: 0, rounds: 1, sessions: 3, chunkDelayMs: 5 });

/** Submits `count` Tasks at once, each a session of its own, and resolves with the time until the last is answered. */
async function answerAll(rt: Runtime, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  const ids = await Promise.all(Array.from({ length: count }, (_, i) => rt.submit(`user ${i}: say ok`)));
  await Promise.all(ids.map((id) => rt.waitForAnswer(id, { timeoutMs: 60_000 })));
  return elapsedMs(started);
}

/** Medians of one session alone and of `sessions` at once, on a runtime with the default limits. */
async function measure(baseURL: string): Promise<{ one: number; all: number }> {
  const rt = await createRuntime({ model: new OpenAIModel({ baseURL, apiKey: 'bench', model: 'bench' }), logger: silentLogger });
  const one: number[] = [];
  const all: number[] = [];
  try {
    for (let round = 0; round < schedule.warmup + schedule.rounds; round++) {
      const [alone, together] = [await answerAll(rt, 1), await answerAll(rt, schedule.sessions)];
      if (round < schedule.warmup) continue;
      one.push(alone);
      all.push(together);
      process.stderr.write(
        `  round ${round + 1 - schedule.warmup}/${schedule.rounds}: one ${alone.toFixed(0)} ms, ${schedule.sessions} at once ${together.toFixed(0)} ms\n`,
      );
    }
  } finally {
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
  return { one: median(one), all: median(all) };
}

/**
 * Session lanes: ten sessions on one agent at once finish in about one turn's time, not ten,
 * with the runtime's defaults (16 lanes per agent, 16 model calls at once in the society).
 */
export async function sessionLanes(): Promise<Row[]> {
  // The server answers every call with `ok` (its offline playbook would plan and spawn agents instead).
  const server = await startOpenAICompatibleServer({ chunkDelayMs: schedule.chunkDelayMs, keepRequests: 0, fallback: () => ({ text: 'ok' }) });
  try {
    const defaults = await measure(server.baseURL);
    return [
      {
        benchmark: `${schedule.sessions} sessions at once on one agent, against a ~${schedule.chunkDelayMs * 4} ms model (time until all answered)`,
        troupe: duration(defaults.all),
        raw: duration(defaults.one),
        ratio: defaults.all / defaults.one,
        notes: `against one session alone on the same runtime (goal ≤ 1.5×); each session's turn in a lane of its own, with the runtime's defaults (maxLanesPerAgent and maxConcurrentModelCalls 16); medians of ${schedule.rounds} rounds after ${schedule.warmup} warm-up, one and ten alternated`,
      },
    ];
  } finally {
    await server.close();
  }
}

import { systemClock } from '../clock.js';
import { TroupeError, describeError } from '../errors.js';
import { RunReplayer, defaultRecordingMaxBytes, readRecording } from '../replay/index.js';
import type { Task } from '../task/index.js';
import { parseMcpServers } from '../tools/index.js';
import { runtimeRedactor } from './runtimeOpening.js';
import type { RuntimeOptions } from './runtimeOptions.js';
import { Runtime } from './runtime.js';
import { replayTools } from './replayStandIns.js';
import { ReplayDriver, type ReplayReport } from './replayDriver.js';

export type { ReplayReport } from './replayDriver.js';

/** What a replay is given: the run's options but those the recording stands in for. */
export interface ReplayOptions extends Omit<RuntimeOptions, 'model' | 'models' | 'clock' | 'ids' | 'record' | 'retry'> {
  /** What the program did before its first `submit` or `send` besides them (createRole, spawn), done again before the recorded inputs are sent. */
  prepare?: (runtime: Runtime) => Promise<void>;
  /** Most bytes of recording read (100 MiB by default); a larger file is refused. */
  maxBytes?: number;
}

/** A runtime replaying a recording, and the end of the replay. */
export interface Replay {
  readonly runtime: Runtime;
  /** The run's answers to the user, as recorded. */
  readonly recordedAnswers: readonly Task[];
  /**
   * Resolves once the recorded Task log has been reproduced, event for event (and the runtime
   * shut down, when the run was); rejects with `replay_diverged` (the runtime then shut down) at
   * the first divergence.
   */
  readonly finished: Promise<ReplayReport>;
}

/**
 * Runs a recorded run again offline (docs/replay.md): the clock, ids, model replies and recorded
 * tool results come from the recording, the user's inputs are sent again where they were, and
 * every Task the bus carries is checked against the recorded log. No model is called: a request
 * the recording does not have, a tool call it does not have, or another Task log stops the replay
 * with `replay_diverged` and a diff. Pure tools run again: give their code in `tools`.
 *
 * @example
 * const replay = await replayRuntime('run.jsonl', { tools: [lookup] });
 * const report = await replay.finished;
 */
export async function replayRuntime(file: string, options: ReplayOptions = {}): Promise<Replay> {
  const { prepare, maxBytes, ...given } = options;
  const recording = readRecording(file, { maxBytes: maxBytes ?? defaultRecordingMaxBytes });
  const replayer = new RunReplayer(recording, runtimeRedactor(given.secrets, parseMcpServers(given.mcpServers ?? {})));
  const models = replayer.models();
  const model = models.get('');
  models.delete('');
  const driver = new ReplayDriver(replayer);
  const runtimeOptions: RuntimeOptions = {
    ...(recording.header.settings as RuntimeOptions),
    ...given,
    ...(model === undefined ? {} : { model }),
    models: Object.fromEntries(models),
    retry: false,
    clock: replayer.clock(systemClock),
    ids: replayer.ids(),
    tools: replayTools(replayer.tools, given.tools ?? []),
  };
  const embedder = replayer.embedder();
  if (embedder !== undefined && given.memory?.embedder === undefined) runtimeOptions.memory = { ...given.memory, embedder };
  const runtime = await Runtime.create(runtimeOptions, { tap: driver.tap });
  try {
    await prepare?.(runtime);
  } catch (error) {
    await runtime.shutdown({ drainTimeoutMs: 0 });
    throw new TroupeError('invalid_input', `replay: prepare failed: ${describeError(error)}`, { cause: error });
  }
  driver.start(runtime);
  return { runtime, recordedAnswers: replayer.tasks.answers(), finished: driver.finished };
}

import { TroupeError } from '../errors.js';
import type { ModelClient } from '../llm/index.js';
import { RunReplayer, defaultRecordingMaxBytes, readRecording } from '../replay/index.js';
import { Redactor, type Task, taskText } from '../task/index.js';
import { type ReplayOptions, replayRuntime } from './replayRuntime.js';
import type { ReplayReport } from './replayDriver.js';

/**
 * The default model of a recorded run, answering from the recording with no network: each request
 * is looked up by its key and its recorded reply streamed back; a request the recording lacks
 * throws `replay_diverged` with a diff. For a test that drives its own runtime: `createRuntime({ model: replayModel(file) })`.
 */
export function replayModel(file: string, options: { secrets?: readonly string[]; maxBytes?: number } = {}): ModelClient {
  const replayer = new RunReplayer(readRecording(file, { maxBytes: options.maxBytes ?? defaultRecordingMaxBytes }), new Redactor(options.secrets ?? []));
  const model = replayer.models().get('');
  if (model === undefined) throw new TroupeError('invalid_input', `recording ${file} names no model`);
  return model;
}

const shown = (task: Task): string => `${task.status}: ${task.status === 'completed' ? taskText(task) : (task.error?.message ?? '')}`;

/**
 * Replays `file` and asserts the run still gives the answers it gave (status and text, in order),
 * as a regression test: throws `replay_diverged` with what differs, or resolves with the report.
 *
 * @example
 * it('still answers as recorded', async () => {
 *   await expectSameAnswers('test/recordings/haiku.jsonl', { tools: [lookup] });
 * });
 */
export async function expectSameAnswers(file: string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const replay = await replayRuntime(file, options);
  const report = await replay.finished;
  const recorded = replay.recordedAnswers.map(shown);
  const replayed = report.answers.map(shown);
  if (recorded.length !== replayed.length || recorded.some((answer, i) => answer !== replayed[i])) {
    throw new TroupeError(
      'replay_diverged',
      `replay of ${file} answered otherwise:\nrecorded: ${JSON.stringify(recorded)}\nreplayed: ${JSON.stringify(replayed)}`,
    );
  }
  return report;
}

import { describeError, errorCodeOf } from '../errors.js';
import { type Replay, type Runtime, replayRuntime } from '../runtime/index.js';
import { Actions, Redactor, taskText } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { readSecrets } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { formatTask } from './formatTask.js';

/**
 * `troupe replay <file>`: runs a recorded run again offline, printing each Task as `troupe run`
 * does; resolves to 0 when the Task log was reproduced, 5 (`replayDiverged`) with the diff when
 * it was not, 2 for a recording refused (not one, damaged, another version, too large).
 */
export async function replayRecording(file: string, options: { readonly verbose: boolean; readonly json: boolean }, io: CliIo): Promise<ExitCode> {
  const secrets = readSecrets(io.env);
  const redactor = new Redactor(secrets);
  const watch = (runtime: Runtime): Promise<void> => {
    runtime.bus.on('*').subscribe((task) => {
      if (task.action === Actions.thinking && !options.verbose) return;
      const shown = redactor.task(task);
      io.stdout.write(`${options.json ? JSON.stringify(shown) : formatTask(shown)}\n`);
    });
    return Promise.resolve();
  };
  let replay: Replay;
  try {
    replay = await replayRuntime(file, { secrets, prepare: watch });
  } catch (error) {
    return reportFailure(io, error, `cannot replay ${file}`);
  }
  try {
    const report = await replay.finished;
    if (!options.json) for (const answer of report.answers) io.stdout.write(`\n${redactor.text(taskText(answer))}\n`);
    io.stderr.write(`troupe: replayed ${report.tasks} Tasks of ${file} offline, the same as recorded\n`);
    return ExitCode.ok;
  } catch (error) {
    await replay.runtime.shutdown({ drainTimeoutMs: 0 });
    io.stderr.write(`troupe: ${redactor.text(describeError(error))}\n`);
    return errorCodeOf(error) === 'replay_diverged' ? ExitCode.replayDiverged : ExitCode.internal;
  }
}

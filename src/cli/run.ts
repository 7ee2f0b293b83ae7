import { Actions, type Task, taskText } from '../task/index.js';
import { createLogger } from '../logger.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { describeError, errorCodeOf } from '../errors.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readRuntimeSettings } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { formatTask } from './formatTask.js';
import { type InspectorConnection, connectInspector, startLocalInspector } from './inspector.js';
import { StatusLine } from './statusLine.js';
import { refuseDamagedStore } from './strictStore.js';

export interface RunOptions {
  readonly timeoutSeconds: number;
  /** Start the local Stately inspector relay on this port. */
  readonly inspectPort?: number;
  /** Send inspection events to this WebSocket inspector instead. */
  readonly inspectUrl?: string;
  /** Print the model's streamed text (node.thinking) too. */
  readonly verbose: boolean;
  /** Draw the live status line (only on a terminal). */
  readonly status: boolean;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
  /** `--strict-store`: refuse a damaged store (exit 2) instead of setting it aside. */
  readonly strictStore?: boolean;
}

/**
 * `troupe run "<requirement>"`: one requirement, printed as it is worked on; resolves to the
 * exit code. Everything the runtime is given (model, logger, data dir) is read here, from
 * `io.env` and the flags.
 *
 * @example
 * process.exitCode = await runRequirement('write a haiku', { timeoutSeconds: 60, verbose: false, status: true, memory: true }, io);
 */
export async function runRequirement(requirement: string, options: RunOptions, io: CliIo): Promise<ExitCode> {
  if (requirement.trim() === '') {
    io.stderr.write('troupe: the requirement must not be empty\n');
    return ExitCode.usage;
  }
  let settings: RuntimeSettings;
  try {
    settings = readRuntimeSettings(options, io.env, 'warn');
  } catch (error) {
    return reportFailure(io, error, 'bad settings in the environment');
  }
  let inspector: InspectorConnection | undefined;
  try {
    if (options.inspectUrl !== undefined) {
      inspector = await connectInspector(options.inspectUrl);
      io.stderr.write(`troupe: sending actor inspection events to ${options.inspectUrl}\n`);
    } else if (options.inspectPort !== undefined) {
      const local = await startLocalInspector(options.inspectPort);
      inspector = local;
      io.stderr.write(`troupe: open ${local.pageUrl} to watch every actor in the Stately inspector\n`);
    }
  } catch (error) {
    return reportFailure(io, error);
  }

  let rt: Runtime;
  try {
    const logger = createLogger(settings.logLevel);
    if (options.strictStore === true) await refuseDamagedStore(settings.dataDir, logger);
    rt = await createRuntime({
      logger,
      model: settings.model,
      dataDir: settings.dataDir,
      ...(inspector === undefined ? {} : { inspect: inspector.inspect }),
    });
  } catch (error) {
    await inspector?.close();
    return reportFailure(io, error, `the runtime could not start (data dir ${settings.dataDir ?? 'memory only'})`);
  }
  io.stderr.write(
    rt.model.scripted
      ? `troupe: no OPENAI_API_KEY or OPENAI_BASE_URL set: using the ${rt.model.name} model, whose answers are scripted, not thought\n`
      : `troupe: model ${rt.model.name}${io.env['OPENAI_BASE_URL'] === undefined ? '' : ` at ${io.env['OPENAI_BASE_URL']}`}\n`,
  );
  const status = options.status && io.stderr.isTTY === true ? new StatusLine(io.stderr, () => rt.agents()) : undefined;
  const print = (line: string): void => (status === undefined ? void io.stdout.write(`${line}\n`) : status.print(io.stdout, line));
  rt.bus.on('*').subscribe((task) => {
    if (task.action === Actions.thinking && !options.verbose) return;
    print(formatTask(task));
  });
  status?.start();

  let exitCode: ExitCode;
  let answer: Task | undefined;
  try {
    const taskId = await rt.submit(requirement);
    answer = await rt.waitForAnswer(taskId, { timeoutMs: options.timeoutSeconds * 1000 });
    exitCode = answer.status === 'completed' ? ExitCode.ok : ExitCode.taskFailed;
  } catch (error) {
    exitCode = exitCodeOf(error);
    status?.stop();
    const hint = errorCodeOf(error) === 'request_timeout' ? ` (raise --timeout, now ${options.timeoutSeconds} s)` : '';
    io.stderr.write(`troupe: ${describeError(error)}${hint}\n`);
  }
  status?.stop();
  const summary = await rt.shutdown({ drainTimeoutMs: answer === undefined ? 0 : rt.config.drainTimeoutMs });
  if (answer !== undefined) {
    const text = answer.status === 'completed' ? taskText(answer) : `${answer.status}: ${answer.error?.message ?? 'no reason given'}`;
    io.stdout.write(`\n${text}\n`);
  }
  io.stderr.write(`troupe: ${summary.agents} agents, ${summary.pendingTasks} pending tasks at shutdown, ${summary.elapsedMs} ms to drain\n`);
  await inspector?.close();
  return exitCode;
}

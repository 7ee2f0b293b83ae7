import { Actions, Redactor, type Task, taskText } from '../task/index.js';
import { createLogger } from '../logger.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { describeError, errorCodeOf } from '../errors.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readRuntimeSettings, readSecrets } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { formatTask } from './formatTask.js';
import { MeteredModel } from './meteredModel.js';
import { type InspectorConnection, connectInspector, startLocalInspector } from './inspector.js';
import { StatusLine } from './statusLine.js';

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
  /** Print every Task as one JSON line (NDJSON) on stdout instead of readable lines; no status line. */
  readonly json?: boolean;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
}

/** The inspector `--inspect-ws` or `--inspect` asks for, connected before the runtime starts so no actor is missed. */
async function openInspector(options: RunOptions, redactor: Redactor, io: CliIo): Promise<InspectorConnection | undefined> {
  if (options.inspectUrl !== undefined) {
    const remote = await connectInspector(options.inspectUrl, redactor);
    io.stderr.write(`troupe: sending actor inspection events to ${options.inspectUrl}\n`);
    return remote;
  }
  if (options.inspectPort === undefined) return undefined;
  const local = await startLocalInspector(options.inspectPort, redactor);
  io.stderr.write(`troupe: open ${local.pageUrl} to watch every actor in the Stately inspector\n`);
  return local;
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
  const secrets = readSecrets(io.env);
  let inspector: InspectorConnection | undefined;
  try {
    inspector = await openInspector(options, new Redactor(secrets), io);
  } catch (error) {
    return reportFailure(io, error);
  }

  const model = new MeteredModel(settings.model);
  let rt: Runtime;
  try {
    rt = await createRuntime({
      logger: createLogger(settings.logLevel),
      model,
      secrets,
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
  const json = options.json === true;
  const status = options.status && !json && io.stderr.isTTY === true ? new StatusLine(io.stderr, () => rt.agents()) : undefined;
  const print = (line: string): void => (status === undefined ? void io.stdout.write(`${line}\n`) : status.print(io.stdout, line));
  rt.bus.on('*').subscribe((task) => {
    if (task.action === Actions.thinking && !options.verbose) return;
    const shown = rt.redactor.task(task);
    print(json ? JSON.stringify(shown) : formatTask(shown));
  });
  status?.start();

  let exitCode: ExitCode;
  let answer: Task | undefined;
  try {
    const taskId = await rt.submit(requirement);
    // On stderr, so stdout stays the Tasks (and, with --json, only JSON lines).
    io.stderr.write(`troupe: task ${taskId} (its messages: troupe messages ${taskId})\n`);
    answer = await rt.waitForAnswer(taskId, { timeoutMs: options.timeoutSeconds * 1000 });
    exitCode = answer.status === 'completed' ? ExitCode.ok : ExitCode.taskFailed;
  } catch (error) {
    exitCode = exitCodeOf(error);
    status?.stop();
    const hint = errorCodeOf(error) === 'request_timeout' ? ` (raise --timeout, now ${options.timeoutSeconds} s)` : '';
    io.stderr.write(`troupe: ${rt.redactor.text(describeError(error))}${hint}\n`);
  }
  status?.stop();
  const summary = await rt.shutdown({ drainTimeoutMs: answer === undefined ? 0 : rt.config.drainTimeoutMs });
  if (answer !== undefined && !json) {
    const text = answer.status === 'completed' ? taskText(answer) : `${answer.status}: ${answer.error?.message ?? 'no reason given'}`;
    io.stdout.write(`\n${rt.redactor.text(text)}\n`);
  }
  const { calls, promptTokens, completionTokens } = model.spend;
  io.stderr.write(
    `troupe: ${summary.agents} agents, ${calls} model calls, ${promptTokens} prompt + ${completionTokens} completion tokens, ` +
      `${summary.pendingTasks} pending tasks at shutdown, ${summary.elapsedMs} ms to drain\n`,
  );
  // The relay stayed up for the whole run; a page still open stops receiving from here on.
  if (options.inspectPort !== undefined) io.stderr.write('troupe: the run has ended; closing the inspector relay\n');
  await inspector?.close();
  return exitCode;
}

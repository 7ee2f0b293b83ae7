import { Actions, type Task, taskText } from '../task/index.js';
import { createLogger, logLevelFromEnv } from '../logger.js';
import { createRuntime } from '../runtime/index.js';
import { type ModelClient, modelFromEnv } from '../llm/index.js';
import { TroupeError, describeError, errorCodeOf } from '../errors.js';
import { ExitCode, exitCodeFor } from './exitCodes.js';
import { formatTask } from './formatTask.js';
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
  /** The organisation store, or null to keep everything in memory. */
  readonly dataDir: string | null;
}

export interface RunIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
}

/** `troupe run "<requirement>"`: one requirement, printed as it is worked on; resolves to the exit code. */
export async function runRequirement(requirement: string, options: RunOptions, io: RunIo): Promise<number> {
  const logger = createLogger(logLevelFromEnv(io.env['TROUPE_LOG_LEVEL']) ?? 'warn');
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
    io.stderr.write(`troupe: ${describeError(error)}\n`);
    return ExitCode.usage;
  }

  let model: ModelClient;
  try {
    model = modelFromEnv(io.env);
  } catch (error) {
    io.stderr.write(`troupe: bad model settings in the environment: ${describeError(error)}\n`);
    await inspector?.close();
    return ExitCode.usage;
  }
  const rt = await createRuntime({
    logger,
    model,
    dataDir: options.dataDir,
    ...(inspector === undefined ? {} : { inspect: inspector.inspect }),
  });
  io.stderr.write(rt.model.scripted
    ? `troupe: no OPENAI_API_KEY or OPENAI_BASE_URL set: using the ${rt.model.name} model, whose answers are scripted, not thought\n`
    : `troupe: model ${rt.model.name}${io.env['OPENAI_BASE_URL'] === undefined ? '' : ` at ${io.env['OPENAI_BASE_URL']}`}\n`);
  const status = options.status && io.stderr.isTTY ? new StatusLine(io.stderr, () => rt.agents()) : undefined;
  const print = (line: string): void => (status === undefined ? void io.stdout.write(`${line}\n`) : status.print(io.stdout, line));
  rt.bus.on('*').subscribe((task) => {
    if (task.action === Actions.thinking && !options.verbose) return;
    print(formatTask(task));
  });
  status?.start();

  let exitCode: number;
  let answer: Task | undefined;
  try {
    const taskId = await rt.submit(requirement);
    answer = await rt.waitForAnswer(taskId, { timeoutMs: options.timeoutSeconds * 1000 });
    exitCode = answer.status === 'completed' ? ExitCode.ok : ExitCode.taskFailed;
  } catch (error) {
    exitCode = error instanceof TroupeError ? exitCodeFor(errorCodeOf(error)) : ExitCode.internal;
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

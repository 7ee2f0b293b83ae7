import { readCommandSettings } from './commandSettings.js';
import { Actions, type Task, redactingLogger, taskText } from '../task/index.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { describeError, errorCodeOf } from '../errors.js';
import { type CliIo, type CliOutput, reportFailure } from './cliIo.js';
import { settingsOptions } from './mcpOption.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { counted } from './counted.js';
import { formatTask } from './formatTask.js';
import { MeteredModel, type ModelSpend } from './meteredModel.js';
import { type InspectFlags, type OpenedInspector, openInspector } from './inspector.js';
import { ModelWatch, describeRetry } from './modelWatch.js';
import { createRunLogger } from './runLogger.js';
import { StatusLine } from './statusLine.js';
import { refuseDamagedStore } from './strictStore.js';
import { type RunApprovalMode, RunApprovals } from './runApprovals.js';
import { type OtelFlags, type TraceExport, openTraceExport } from './traceExport.js';

export interface RunOptions extends InspectFlags, OtelFlags {
  readonly timeoutSeconds: number;
  /** `--session`: continue this session; absent, the run starts a new one. */
  readonly sessionId?: string;
  /** Print the model's streamed text (node.thinking) too. */
  readonly verbose: boolean;
  /** Draw the live status line (only on a terminal). */
  readonly status: boolean;
  /** Print every Task as one JSON line (NDJSON) on stdout instead of readable lines; no status line. */
  readonly json?: boolean;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  /** `--mcp <file>`: the MCP servers whose tools agents get (else `TROUPE_MCP_CONFIG`). */
  readonly mcp?: string;
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
  /** `--strict-store`: refuse a damaged store (exit 2) instead of setting it aside. */
  readonly strictStore?: boolean;
  /** `--approve-all`: approve every tool call that needs a person's approval, instead of asking on the terminal (docs/approvals.md). */
  readonly approveAll?: boolean;
  /** `--record <file>`: record the run there, for `troupe replay` (docs/replay.md). */
  readonly record?: string;
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
  const read = readCommandSettings(options, io, 'warn');
  if (typeof read === 'number') return read;
  const { settings, secrets, redactor } = read;
  let inspector: OpenedInspector | undefined;
  try {
    inspector = await openInspector(options, redactor);
  } catch (error) {
    return reportFailure(io, error);
  }
  if (inspector !== undefined) {
    const { pageUrl } = inspector;
    io.stderr.write(
      pageUrl === undefined
        ? `troupe: sending actor inspection events to ${options.inspectUrl}\n`
        : `troupe: open ${pageUrl} to watch every actor in the Stately inspector\n`,
    );
  }

  let rt: Runtime | undefined;
  const json = options.json === true;
  const status = options.status && !json && io.stderr.isTTY === true ? new StatusLine(io.stderr, () => rt?.agents() ?? []) : undefined;
  // Everything written while the status line is drawn goes above it, log lines included.
  const print = (out: CliOutput, line: string): void => (status === undefined ? void out.write(`${line}\n`) : status.print(out, line));
  // Redacted here too: the watch logs retries with the provider's error, which may echo the key.
  const logger = redactingLogger(
    createRunLogger(settings.logLevel, (line) => print(io.stderr, line)),
    redactor,
  );
  // Metered under the retry layer, so every attempt counts as a call.
  const model = new MeteredModel(settings.model);
  const watch = new ModelWatch(model, { logger, onRetry: (notice) => status?.notice(redactor.text(describeRetry(notice))) });
  let traces: TraceExport | undefined;
  try {
    if (options.strictStore === true) await refuseDamagedStore(settings.dataDir, logger);
    traces = await openTraceExport(options, io.env, 'troupe run');
    rt = await createRuntime({
      ...(await settingsOptions(settings, options.mcp, io.env)),
      logger,
      model: watch.model,
      // The watch is the retry layer: the runtime adds none.
      retry: false,
      secrets,
      ...(options.record === undefined ? {} : { record: options.record }),
      ...(inspector === undefined ? {} : { inspect: inspector.inspect }),
      ...(traces === undefined ? {} : { tracing: traces.tracing }),
    });
  } catch (error) {
    await inspector?.close();
    await traces?.close();
    return reportFailure(io, error, `the runtime could not start (data dir ${settings.dataDir ?? 'memory only'})`);
  }
  if (traces !== undefined) io.stderr.write(`troupe: exporting traces to ${traces.url}\n`);
  io.stderr.write(
    rt.model.scripted
      ? `troupe: no OPENAI_API_KEY or OPENAI_BASE_URL set: using the ${rt.model.name} model, whose answers are scripted, not thought\n`
      : `troupe: model ${rt.model.name}${io.env['OPENAI_BASE_URL'] === undefined ? '' : ` at ${io.env['OPENAI_BASE_URL']}`}\n`,
  );
  rt.events('*').subscribe((task) => {
    // The society moved on: a retry announced before is over.
    status?.notice(undefined);
    if (task.action === Actions.thinking && !options.verbose) return;
    const shown = redactor.task(task);
    print(io.stdout, json ? JSON.stringify(shown) : formatTask(shown));
  });
  status?.start();
  const exitCode = await answerAndReport(rt, requirement, options, io, { status, print, watch, spend: model.spend });
  // The relay stayed up for the whole run; a page still open stops receiving from here on.
  if (options.inspectPort !== undefined) io.stderr.write('troupe: the run has ended; closing the inspector relay\n');
  await inspector?.close();
  // The last spans (the turn that answered) are still batched: they leave before the process does.
  await traces?.close();
  return exitCode;
}

/** Submits the requirement, waits for the answer, shuts down and prints it; resolves to the exit code. */
async function answerAndReport(
  rt: Runtime,
  requirement: string,
  options: RunOptions,
  io: CliIo,
  watched: {
    readonly status: StatusLine | undefined;
    /** Writes a line above the status line, if one is drawn. */
    readonly print: (out: CliOutput, line: string) => void;
    readonly watch: ModelWatch;
    readonly spend: ModelSpend;
  },
): Promise<ExitCode> {
  const { status, print, watch, spend } = watched;
  const json = options.json === true;
  const approvals = new RunApprovals(rt, approvalMode(options, io), {
    print: (line) => print(io.stderr, line),
    pause: () => status?.stop(),
    resume: () => status?.start(),
  });
  let exitCode: ExitCode;
  let answer: Task | undefined;
  try {
    const taskId = await rt.submit(requirement, options.sessionId === undefined ? {} : { sessionId: options.sessionId });
    const session = options.sessionId ?? taskId;
    // On stderr, so stdout stays the Tasks (and, with --json, only JSON lines).
    print(io.stderr, `troupe: task ${taskId} in session ${session} (its messages: troupe messages ${session}; continue it: --session ${session})`);
    answer = await rt.waitForAnswer(taskId, { timeoutMs: options.timeoutSeconds * 1000 });
    exitCode = exitCodeOfAnswer(answer, watch);
  } catch (error) {
    exitCode = exitCodeOf(error);
    status?.stop();
    const hint = errorCodeOf(error) === 'request_timeout' ? ` (raise --timeout, now ${options.timeoutSeconds} s)` : '';
    io.stderr.write(`troupe: ${rt.redactor.text(describeError(error))}${hint}\n`);
  }
  approvals.close();
  status?.stop();
  const summary = await rt.shutdown({ drainTimeoutMs: answer === undefined ? 0 : rt.config.drainTimeoutMs });
  if (answer !== undefined && !json) {
    const text = answer.status === 'completed' ? taskText(answer) : `${answer.status}: ${answer.error?.message ?? 'no reason given'}`;
    io.stdout.write(`\n${rt.redactor.text(text)}\n`);
  }
  if (answer !== undefined && exitCode === ExitCode.usage) io.stderr.write(`troupe: the model is not set up right: check ${modelVariables}\n`);
  const { calls, promptTokens, completionTokens } = spend;
  io.stderr.write(
    `troupe: ${counted(summary.agents, 'agent')}, ${counted(calls, 'model call')}, ${promptTokens} prompt + ${completionTokens} completion tokens, ` +
      `${counted(summary.pendingTasks, 'pending task')} at shutdown, ${summary.elapsedMs} ms to drain\n`,
  );
  return exitCode;
}

/** `--approve-all`; else a question on the terminal when there is one to ask on (stdin, and stderr where it is asked); else a refusal. */
function approvalMode(options: RunOptions, io: CliIo): RunApprovalMode {
  if (options.approveAll === true) return { kind: 'all' };
  if (io.stdin === undefined || io.stdin.isTTY !== true || io.stderr.isTTY !== true) return { kind: 'refuse' };
  return { kind: 'ask', input: io.stdin, output: io.stderr };
}

const modelVariables = 'OPENAI_BASE_URL, OPENAI_API_KEY and TROUPE_MODEL';

/**
 * 0 for an answer, 1 for a failure, but 2 when it failed on the model and a model call was given
 * up on for a setup problem: that is the environment to fix, like any other bad setting.
 */
function exitCodeOfAnswer(answer: Task, watch: ModelWatch): ExitCode {
  if (answer.status === 'completed') return ExitCode.ok;
  return answer.error?.code === 'model_error' && watch.setupFailure !== undefined ? ExitCode.usage : ExitCode.taskFailed;
}

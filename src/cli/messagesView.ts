import type { Command } from 'commander';
import { Redactor, type Task, TaskIdSchema } from '../task/index.js';
import type { CliIo } from './cliIo.js';
import type { Logger } from '../logger.js';
import type { ArtifactRef } from '../org/artifacts/artifactRecords.js';
import { artifactReader } from '../org/artifacts/artifactReader.js';
import type { OrgStore } from '../org/index.js';
import { withOrganisation } from './dataDir.js';
import { readSecrets } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { formatTask } from './formatTask.js';
import { integerAtLeast } from './integerArgument.js';
import { clockTime } from './timeFormat.js';

export interface MessagesViewOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  readonly json: boolean;
  readonly offset?: number;
  readonly limit?: number;
}

/**
 * `troupe messages <taskId>`: prints the message log of one task tree, in order, one line per
 * Task (with `--json`, as one JSON line: NDJSON), reading only; resolves to the exit code.
 *
 * @example
 * process.exitCode = await messagesView('t1', { json: false, limit: 20 }, { stdout: process.stdout, stderr: process.stderr, env: process.env });
 */
function messagesView(taskId: string, options: MessagesViewOptions, io: CliIo): Promise<ExitCode> {
  const checked = TaskIdSchema.safeParse(taskId);
  if (!checked.success) {
    io.stderr.write(`troupe: <taskId> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${taskId}"\n`);
    return Promise.resolve(ExitCode.usage);
  }
  return withOrganisation(options.dataDir, io, (store, dir, logger) => {
    // An empty page past the end is fine; a task tree with no message at all is not one.
    if (store.messages(taskId, { limit: 1 }).length === 0) {
      io.stderr.write(`troupe: no messages for task ${taskId} in ${dir}\n`);
      return ExitCode.usage;
    }
    const redactor = new Redactor(readSecrets(io.env));
    const tasks = store
      .messages(taskId, {
        ...(options.offset === undefined ? {} : { offset: options.offset }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      })
      .map((task) => redactor.task(task));
    // One line a Task either way: --json is NDJSON, as `troupe run --json` and `troupe memory --json` print.
    const line = options.json ? (task: Task): string => JSON.stringify(task) : (task: Task): string => `${clockTime(task.createdAt)}  ${formatTask(task)}`;
    io.stdout.write(tasks.map((task) => `${line(task)}\n`).join(''));
    // What is stored now (an evicted artifact is still named in the log, not here); NDJSON stays Tasks only.
    if (!options.json)
      io.stdout.write(
        storedArtifacts(store, taskId, logger)
          .map((ref) => `${artifactLine(ref)}\n`)
          .join(''),
      );
    return ExitCode.ok;
  });
}

/** One line per stored artifact: when, its id (for `troupe artifact`), name, media type, size and Task. */
function artifactLine(ref: ArtifactRef): string {
  return `${clockTime(ref.createdAt)}  artifact ${ref.id}  ${ref.name} (${ref.mediaType}, ${ref.size} bytes)  of task ${ref.taskId}`;
}

function storedArtifacts(store: OrgStore, sessionId: string, logger: Logger): ArtifactRef[] {
  return artifactReader(store.environment, logger).list(sessionId);
}

/** Adds `troupe messages` to the program, run on `io`. */
export function registerMessagesCommand(program: Command, io: CliIo): void {
  program
    .command('messages')
    .description("print every message of a task's tree, in order, from the data dir (read-only)")
    .argument('<taskId>', 'the root task of the tree')
    .option('--data-dir <dir>', 'the organisation to read (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--json', 'print each Task as one JSON line (NDJSON)', false)
    .option('--offset <n>', 'skip the first n messages', integerAtLeast('--offset', 0))
    .option('--limit <n>', 'print at most n messages', integerAtLeast('--limit', 1))
    .action(async (taskId: string, options: MessagesViewOptions) => {
      process.exitCode = await messagesView(taskId, options, io);
    });
}

import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { describeError } from '../errors.js';
import { ArtifactIdSchema } from '../org/artifacts/artifactRecords.js';
import { artifactReader } from '../org/artifacts/artifactReader.js';
import type { StoredArtifact } from '../org/artifacts/artifactStore.js';
import type { CliIo } from './cliIo.js';
import { reportFailure } from './cliIo.js';
import { withOrganisation } from './dataDir.js';
import { ExitCode } from './exitCodes.js';

export interface ArtifactCommandOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  /** `-o`: the file to write the content to. */
  readonly output?: string;
}

/**
 * `troupe artifact <id>`: an artifact's content from the data dir, on stdout or (`-o`) in a file;
 * bytes are never written to a terminal. Resolves to the exit code.
 */
function artifactCommand(id: string, options: ArtifactCommandOptions, io: CliIo): Promise<ExitCode> {
  const checked = ArtifactIdSchema.safeParse(id);
  if (!checked.success) {
    io.stderr.write(`troupe: <id> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${id}"\n`);
    return Promise.resolve(ExitCode.usage);
  }
  return withOrganisation(options.dataDir, io, async (store, dir, logger) => {
    let artifact: StoredArtifact | undefined;
    try {
      artifact = artifactReader(store.environment, logger).get(id);
    } catch (error) {
      return reportFailure(io, error, `cannot read artifact ${id}`);
    }
    if (artifact === undefined) {
      io.stderr.write(`troupe: no artifact ${id} in ${dir} (never stored, or evicted)\n`);
      return ExitCode.usage;
    }
    return deliver(artifact, options.output, io);
  });
}

/** Writes the content where it was asked for. */
async function deliver({ ref, content }: StoredArtifact, output: string | undefined, io: CliIo): Promise<ExitCode> {
  if (output !== undefined) {
    try {
      await writeFile(output, content);
    } catch (error) {
      io.stderr.write(`troupe: cannot write artifact ${ref.id} to ${output}: ${describeError(error)}\n`);
      return ExitCode.usage;
    }
    io.stderr.write(`wrote ${ref.name} (${ref.mediaType}, ${ref.size} bytes) to ${output}\n`);
    return ExitCode.ok;
  }
  if (typeof content !== 'string' && io.stdout.isTTY === true) {
    io.stderr.write(`troupe: artifact ${ref.id} (${ref.name}) is ${ref.mediaType} bytes; not written to a terminal: give -o <file>, or pipe it\n`);
    return ExitCode.usage;
  }
  io.stdout.write(content);
  return ExitCode.ok;
}

/** Adds `troupe artifact` to the program, run on `io`. */
export function registerArtifactCommand(program: Command, io: CliIo): void {
  program
    .command('artifact')
    .description('print an artifact a tool call stored (ids are listed by `troupe messages`), from the data dir (read-only)')
    .argument('<id>', 'the artifact id')
    .option('-o, --output <file>', 'write the content to this file instead of stdout (needed for bytes on a terminal)')
    .option('--data-dir <dir>', 'the organisation to read (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .action(async (id: string, options: ArtifactCommandOptions) => {
      process.exitCode = await artifactCommand(id, options, io);
    });
}

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Logger, createLogger } from '../logger.js';
import type { OrgStore } from '../org/index.js';
import { loadOrgStore } from '../org/loadOrgStore.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { readLogLevel, resolveDataDir } from './environment.js';
import { ExitCode } from './exitCodes.js';

/** Why `dir` holds no organisation to read, or undefined when it holds an LMDB environment (something has run there). */
async function missingOrganisation(dir: string): Promise<string | undefined> {
  const [dirStat, dataStat] = await Promise.all([
    stat(dir).catch(() => undefined),
    // The store opens LMDB with a subdirectory, so its data file is always `data.mdb` inside.
    stat(join(dir, 'data.mdb')).catch(() => undefined),
  ]);
  if (dirStat !== undefined && !dirStat.isDirectory()) return `${dir} is not a directory`;
  return dirStat?.isDirectory() === true && dataStat?.isFile() === true ? undefined : `no organisation at ${dir} (nothing has run there yet)`;
}

/**
 * Runs `view` over the organisation in `--data-dir` (see `resolveDataDir`) and closes it
 * afterwards; resolves to the exit code. A dir without an organisation is a usage error and is
 * left as it is: the store creates whatever it opens, so it is only opened once there is
 * something to read. The store has no read-only mode; `view` only reads, so nothing is written
 * beyond what opening does (a pending migration, moving invalid records to the quarantine).
 * A damaged store is refused (exit 2) and left as it is: a view never moves files aside.
 */
export async function withOrganisation(
  dataDir: string | undefined,
  io: CliIo,
  view: (store: OrgStore, dir: string, logger: Logger) => ExitCode | Promise<ExitCode>,
): Promise<ExitCode> {
  let dir: string;
  let logger: Logger;
  try {
    // A read-only view has no --memory: there is always a directory to read.
    dir = resolveDataDir(dataDir, false, io.env);
    logger = createLogger(readLogLevel(io.env, 'warn'), io.stderr);
  } catch (error) {
    return reportFailure(io, error, 'bad settings in the environment');
  }
  const missing = await missingOrganisation(dir);
  if (missing !== undefined) {
    io.stderr.write(`troupe: ${missing}\n`);
    return ExitCode.usage;
  }
  let store: OrgStore;
  try {
    // Loaded here, not with the CLI: only the commands that read an organisation need the store.
    const { openOrgStore } = await loadOrgStore();
    store = await openOrgStore({ dir, logger, onDamage: 'refuse' });
  } catch (error) {
    return reportFailure(io, error, `cannot read the organisation at ${dir}`);
  }
  try {
    return await view(store, dir, logger);
  } finally {
    await store.close();
  }
}

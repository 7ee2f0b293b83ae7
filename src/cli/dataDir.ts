import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeError } from '../errors.js';
import { createLogger, logLevelFromEnv } from '../logger.js';
import { type OrgStore, openOrgStore } from '../org/index.js';
import { ExitCode } from './exitCodes.js';

/** Where the CLI writes: what the views print and how a command ends. */
export interface ViewIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
}

/** The organisation's directory: `--data-dir`, else `TROUPE_DATA_DIR`, else `./.troupe`; absolute. */
export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromEnv = env['TROUPE_DATA_DIR'];
  return resolve(option ?? (fromEnv === undefined || fromEnv === '' ? '.troupe' : fromEnv));
}

/** True when `dir` holds an LMDB environment, i.e. something has run there. */
async function hasOrganisation(dir: string): Promise<boolean> {
  const [dirStat, dataStat] = await Promise.all([
    stat(dir).catch(() => undefined),
    // The store opens LMDB with a subdirectory, so its data file is always `data.mdb` inside.
    stat(join(dir, 'data.mdb')).catch(() => undefined),
  ]);
  return dirStat?.isDirectory() === true && dataStat?.isFile() === true;
}

/**
 * Runs `view` over the organisation in `dir` and closes it afterwards; resolves to the exit
 * code. A dir without an organisation is a usage error and is left as it is: the store creates
 * whatever it opens, so it is only opened once there is something to read. The store has no
 * read-only mode; `view` only reads, so nothing is written beyond what opening does (a
 * pending migration, moving invalid records to the quarantine).
 */
export async function withOrganisation(dir: string, io: ViewIo, view: (store: OrgStore) => number): Promise<number> {
  if (!(await hasOrganisation(dir))) {
    io.stderr.write(`troupe: no organisation at ${dir} (nothing has run there yet)\n`);
    return ExitCode.usage;
  }
  let store: OrgStore;
  try {
    store = await openOrgStore({ dir, logger: createLogger(logLevelFromEnv(io.env['TROUPE_LOG_LEVEL']) ?? 'warn') });
  } catch (error) {
    io.stderr.write(`troupe: cannot read the organisation at ${dir}: ${describeError(error)}\n`);
    return ExitCode.internal;
  }
  try {
    return view(store);
  } finally {
    await store.close();
  }
}

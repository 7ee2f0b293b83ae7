import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { TroupeError, describeError } from '../errors.js';
import type { OrgStoreOptions } from './types.js';

/** The files of the store's LMDB environment in its directory (`noSubdir: false`). */
export const storeFiles = ['data.mdb', 'lock.mdb'] as const;

/** The refusal of a damaged store, naming the directory and what is wrong with it. */
export function storeDamaged(dir: string, reason: string, cause?: unknown): TroupeError {
  return new TroupeError('store_damaged', `the org store in ${dir} is damaged: ${reason}`, { cause, context: { dir } });
}

/**
 * Moves the store's files into a new folder `damaged-<time>` inside `dir` (`-2`, `-3`, … when
 * taken) and resolves with its path. Nothing is deleted: what was there can still be examined
 * or recovered, and the next open starts empty.
 */
async function setAside(dir: string, at: number): Promise<string> {
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-');
  for (let attempt = 1; ; attempt++) {
    const folder = join(dir, attempt === 1 ? `damaged-${stamp}` : `damaged-${stamp}-${attempt}`);
    try {
      await mkdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    for (const file of storeFiles) {
      await rename(join(dir, file), join(folder, file)).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
    }
    return folder;
  }
}

/** The store's options with its logger and clock settled. */
export type StoreSettings = OrgStoreOptions & Required<Pick<OrgStoreOptions, 'logger' | 'clock'>>;

/** Moves a damaged store's files aside (logging where to) so it starts empty; or, with `onDamage: 'refuse'`, throws `damage`. */
export async function setAsideOrRefuse(settings: StoreSettings, damage: TroupeError): Promise<void> {
  if (settings.onDamage === 'refuse') throw damage;
  const folder = await setAside(settings.dir, settings.clock.now());
  settings.logger.error(
    { dir: settings.dir, movedTo: folder, reason: damage.message },
    'the org store is damaged: its files were moved aside and it starts empty',
  );
}

/** lmdb's own failures (`MDB_CORRUPTED: …`, `MDB_PAGE_NOTFOUND: …`, …): a file lmdb cannot make sense of. */
export function isLmdbFailure(error: unknown): boolean {
  return error instanceof Error && /^MDB_[A-Z_]+/.test(error.message);
}

/** Runs a step that reads the whole store: any failure of it means the files are damaged. */
export function readingThrough<T>(dir: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof TroupeError ? error : storeDamaged(dir, `reading it failed: ${describeError(error)}`, error);
  }
}

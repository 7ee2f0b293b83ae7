import type { Logger } from '../logger.js';
import { loadOrgStore } from '../org/loadOrgStore.js';

/**
 * `--strict-store`: opens the org store in `dataDir` once before the runtime does, with
 * `onDamage: 'refuse'`, so a damaged store is refused (`store_damaged`, exit 2) and left as it
 * is, where the runtime would move it aside and start empty. A sound store is closed again
 * for the runtime to open; memory only (`null`), there is nothing to check. lmdb is loaded
 * only here, so a memory-only command never loads it.
 */
export async function refuseDamagedStore(dataDir: string | null, logger: Logger): Promise<void> {
  if (dataDir === null) return;
  const { openOrgStore } = await loadOrgStore();
  const store = await openOrgStore({ dir: dataDir, logger, onDamage: 'refuse' });
  await store.close();
}

import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { CommitListener } from '../../org/index.js';
import { loadOrgStore } from '../../org/loadOrgStore.js';
import { type Journal, memoryJournal } from './journal.js';
import { storeJournal } from './storeJournal.js';
import type { WriteBatchLimits } from './writeBatch.js';

/**
 * The journal of a runtime: on the LMDB org store in `dataDir`, or keeping nothing when it is
 * null. The store is loaded only here, when there is one, so a memory-only runtime never loads lmdb.
 *
 * @internal
 */
export async function openJournal(
  dataDir: string | null,
  deps: { logger: Logger; clock: Clock; batch: WriteBatchLimits; messageLogLimit: number; terminatedAgentsKept: number; onCommit?: CommitListener },
): Promise<Journal> {
  if (dataDir === null) return memoryJournal;
  const { openOrgStore } = await loadOrgStore();
  const { logger, clock, messageLogLimit, terminatedAgentsKept, onCommit } = deps;
  const store = await openOrgStore({ dir: dataDir, logger, clock, messageLogLimit, terminatedAgentsKept, ...(onCommit === undefined ? {} : { onCommit }) });
  return storeJournal(store, deps.logger, deps.batch, deps.clock, memoryIndexDirOf(dataDir));
}

/** Where agents' L4 vector indexes go in a data dir: files beside the store, each a cache of vectors the store holds. */
export function memoryIndexDirOf(dataDir: string): string {
  return join(dataDir, 'memory-index');
}

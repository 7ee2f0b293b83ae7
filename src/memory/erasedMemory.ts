import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Key, RootDatabase } from 'lmdb';
import { entriesDb } from './entryStore.js';
import { factDbsOf } from './facts/factRecords.js';

/**
 * Every key of `db` that starts with `agentId`: `[agentId, seq]` entries and `[agentId, factId]`
 * facts alike, since lmdb's key encoding sorts numbers before strings and ids sort below `~`.
 */
function keysOf(db: Database<unknown>, agentId: string): Key[] {
  return [...db.getKeys({ start: [agentId], end: [agentId, '~'] })];
}

/**
 * Erases what the memories of `agentIds` left on disk: their L1–L3 entries, their L4 facts,
 * vectors and bookkeeping (one LMDB transaction, resolved once flushed), then their index files
 * (`<agentId>.*` in `indexDir`; agent ids have no dot, so the prefix names one agent). For agents
 * the organisation forgets: their memories must not be open. Erasing what is already gone is no
 * error, so a retention interrupted by a crash erases again.
 */
export async function eraseStoredMemories(root: RootDatabase, indexDir: string, agentIds: readonly string[]): Promise<void> {
  if (agentIds.length === 0) return;
  const entries = entriesDb(root);
  const facts = factDbsOf(root);
  await root.transaction(() => {
    for (const agentId of agentIds) {
      for (const db of [entries, facts.facts, facts.vectors]) {
        if (db === null) continue;
        for (const key of keysOf(db, agentId)) db.removeSync(key);
      }
      facts.meta.removeSync(agentId);
    }
  });
  await root.flushed;
  await removeIndexFiles(indexDir, new Set(agentIds));
}

async function removeIndexFiles(indexDir: string, agentIds: ReadonlySet<string>): Promise<void> {
  let files: string[];
  try {
    files = await readdir(indexDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const theirs = files.filter((file) => agentIds.has(file.slice(0, file.indexOf('.'))));
  await Promise.all(theirs.map((file) => rm(join(indexDir, file), { force: true })));
}

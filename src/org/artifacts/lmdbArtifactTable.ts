import type { Database, Key, RootDatabase } from 'lmdb';
import type { ArtifactChange, ArtifactTable, EndedTask } from './artifactRecords.js';

/** The sub-dbs artifacts take in the org store's environment (counted in its `maxDbs`). */
export const artifactSubDbs = { records: 'artifact-records', content: 'artifact-content', tasks: 'artifact-tasks', ended: 'artifact-ended' } as const;

interface ArtifactDbs {
  readonly records: Database<unknown>;
  readonly content: Database<Buffer>;
  readonly tasks: Database<unknown>;
  readonly ended: Database<unknown>;
}

/**
 * The artifact table in LMDB: descriptions by id, bytes by id (raw, not encoded), the Tasks owning
 * them by `[sessionId, taskId]`, and the Tasks that ended by `[endedAt, taskId]` (the eviction order).
 */
export function lmdbArtifactTable(root: RootDatabase): ArtifactTable {
  const dbs: ArtifactDbs = {
    records: root.openDB<unknown, Key>({ name: artifactSubDbs.records }),
    content: root.openDB<Buffer, Key>({ name: artifactSubDbs.content, encoding: 'binary' }),
    tasks: root.openDB<unknown, Key>({ name: artifactSubDbs.tasks }),
    ended: root.openDB<unknown, Key>({ name: artifactSubDbs.ended }),
  };
  const taskEntries = (range: { start?: Key; end?: Key }): Array<{ key: string; value: unknown }> =>
    [...dbs.tasks.getRange(range)].map(({ key, value }) => ({ key: JSON.stringify(key), value }));
  return {
    record: (id) => dbs.records.get(id),
    // Copied out: lmdb may reuse the buffer it read into.
    content: (id) => {
      const bytes = dbs.content.get(id);
      return bytes === undefined ? undefined : new Uint8Array(bytes);
    },
    task: (sessionId, taskId) => dbs.tasks.get([sessionId, taskId]),
    // Ids are letters, digits, `_` and `-`, all below `~`.
    sessionTasks: (sessionId) => taskEntries({ start: [sessionId], end: [sessionId, '~'] }),
    allTasks: () => taskEntries({}),
    endedTasks: () => endedTasks(dbs.ended),
    change: (change: ArtifactChange) =>
      // Inside `transaction` the sync calls write into that one transaction, committed off the main thread.
      root
        .transaction(() => {
          if (change.put !== undefined) {
            dbs.records.putSync(change.put.record.id, change.put.record);
            dbs.content.putSync(change.put.record.id, Buffer.from(change.put.content.buffer, change.put.content.byteOffset, change.put.content.byteLength));
          }
          for (const id of change.removeIds ?? []) {
            dbs.records.removeSync(id);
            dbs.content.removeSync(id);
          }
          for (const task of change.removeTasks ?? []) dbs.tasks.removeSync([task.sessionId, task.taskId]);
          for (const entry of change.removeEnded ?? []) dbs.ended.removeSync([entry.endedAt, entry.taskId]);
          for (const task of change.tasks ?? []) dbs.tasks.putSync([task.sessionId, task.taskId], task);
          for (const entry of change.ended ?? []) dbs.ended.putSync([entry.endedAt, entry.taskId], entry.sessionId);
        })
        .then(() => undefined),
  };
}

/** The ended index in key order, skipping what does not have its shape (the store's task records decide what is evicted). */
function* endedTasks(db: Database<unknown>): Iterable<EndedTask> {
  for (const { key, value } of db.getRange({})) {
    if (!Array.isArray(key) || typeof key[0] !== 'number' || typeof key[1] !== 'string' || typeof value !== 'string') continue;
    yield { endedAt: key[0], taskId: key[1], sessionId: value };
  }
}

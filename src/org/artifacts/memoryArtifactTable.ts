import type { ArtifactChange, ArtifactRecord, ArtifactTable, ArtifactTask, EndedTask } from './artifactRecords.js';

/** The artifact table of a runtime without a data dir: maps, bounded by the same limits as on disk. */
export function memoryArtifactTable(): ArtifactTable {
  const records = new Map<string, ArtifactRecord>();
  const contents = new Map<string, Uint8Array>();
  const sessions = new Map<string, Map<string, ArtifactTask>>();
  // Insertion order is the order Tasks ended in: each is marked ended once, on the runtime's clock.
  const ended = new Map<string, EndedTask>();
  const entries = (tasks: Iterable<ArtifactTask>): Array<{ key: string; value: unknown }> => [...tasks].map((task) => ({ key: task.taskId, value: task }));
  return {
    record: (id) => records.get(id),
    content: (id) => contents.get(id),
    task: (sessionId, taskId) => sessions.get(sessionId)?.get(taskId),
    sessionTasks: (sessionId) => entries(sessions.get(sessionId)?.values() ?? []),
    allTasks: () => [...sessions.values()].flatMap((tasks) => entries(tasks.values())),
    endedTasks: () => [...ended.values()],
    change: (change: ArtifactChange) => {
      for (const id of change.removeIds ?? []) {
        records.delete(id);
        contents.delete(id);
      }
      for (const task of change.removeTasks ?? []) {
        const tasks = sessions.get(task.sessionId);
        tasks?.delete(task.taskId);
        if (tasks?.size === 0) sessions.delete(task.sessionId);
      }
      for (const entry of change.removeEnded ?? []) ended.delete(entry.taskId);
      if (change.put !== undefined) {
        records.set(change.put.record.id, change.put.record);
        contents.set(change.put.record.id, change.put.content);
      }
      for (const task of change.tasks ?? []) {
        let tasks = sessions.get(task.sessionId);
        if (tasks === undefined) sessions.set(task.sessionId, (tasks = new Map<string, ArtifactTask>()));
        tasks.set(task.taskId, task);
      }
      for (const entry of change.ended ?? []) ended.set(entry.taskId, entry);
      return Promise.resolve();
    },
  };
}

import { type Task, asksForWork } from '../task/index.js';

/**
 * The key of work in the `givenWork` index: the agent asked and the Task's id, for a Task that
 * asks for a turn (`asksForWork`); undefined for any other Task. The index lets a transport tell
 * work the society was given before (a replay from the wire, even after a restart) from new
 * work, with one key lookup instead of a search of the message log.
 */
export function givenWorkKey(task: Pick<Task, 'to' | 'id' | 'status' | 'action'>): [string, string] | undefined {
  return asksForWork(task) ? [task.to, task.id] : undefined;
}

/**
 * The index key of the Task a raw message record holds, read without validating the whole
 * record (retention and the migration read many): undefined when it holds no work, or is not
 * shaped as a message record at all (such a record is quarantined when read; its index entry,
 * if any, then outlives the limit).
 */
export function givenWorkKeyOfRecord(record: unknown): [string, string] | undefined {
  const task = (record as { task?: unknown } | null | undefined)?.task as Partial<Record<'to' | 'id' | 'status' | 'action', unknown>> | null | undefined;
  if (typeof task !== 'object' || task === null) return undefined;
  const { to, id, status, action } = task;
  if (typeof to !== 'string' || typeof id !== 'string' || typeof status !== 'string' || typeof action !== 'string') return undefined;
  return givenWorkKey({ to, id, status: status as Task['status'], action });
}

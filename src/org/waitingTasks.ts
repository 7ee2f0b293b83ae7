import type { Key } from 'lmdb';
import { describeError } from '../errors.js';
import { type Task, parseTask } from '../task/index.js';
import { type CheckedReadDeps, moveAside } from './checkedOnRead.js';
import { entries } from './reads.js';
import { isNameKey, isSeq, nameRange } from './keys.js';
import { validators } from './validators.js';

/** The waiting Task a record holds with its place in the order, or why the record is invalid. */
function waitingOf(key: Key, value: unknown): { readonly seq: number; readonly task: Task } | string {
  const record = value as { v?: unknown; seq?: unknown; task?: unknown } | null;
  if (typeof record === 'object' && record !== null && record.v === 1 && isSeq(record.seq) && Object.keys(record).length === 3) {
    try {
      const task = parseTask(record.task);
      // The key names the Task it holds, and only new work waits.
      if (isNameKey(key) && key[1] === task.id && task.status === 'submitted') return { seq: record.seq, task };
    } catch (error) {
      return validators.mailboxes(key, value) ?? describeError(error);
    }
  }
  return validators.mailboxes(key, value) ?? 'invalid value';
}

/**
 * The Tasks waiting for `agentId`, in the order they arrived, skipping (and quarantining) invalid
 * records: waiting Tasks are checked as they are read, when their agent starts (see checkedOnRead.ts).
 */
export function readWaiting(deps: CheckedReadDeps, agentId: string): Task[] {
  const waiting: { readonly seq: number; readonly task: Task }[] = [];
  for (const entry of entries(deps.dbs.mailboxes, nameRange(agentId))) {
    const found = 'undecodable' in entry ? `undecodable: ${describeError(entry.undecodable)}` : waitingOf(entry.key, entry.value);
    if (typeof found === 'string') moveAside(deps, 'mailboxes', entry.key, found);
    else waiting.push(found);
  }
  return waiting.sort((a, b) => a.seq - b.seq).map(({ task }) => task);
}

import type { Key } from 'lmdb';
import { describeError } from '../errors.js';
import { type Task, parseTask } from '../task/index.js';
import { type CheckedReadDeps, moveAside } from './checkedOnRead.js';
import { entries } from './reads.js';
import { seqRange } from './keys.js';
import type { Page } from './types.js';
import { validators } from './validators.js';

/** The Task a message record holds, or why the record is invalid. */
function taskOf(key: Key, value: unknown): Task | string {
  const record = value as { v?: unknown; task?: unknown } | null;
  if (typeof record === 'object' && record !== null && record.v === 1 && Object.keys(record).length === 2) {
    try {
      return parseTask(record.task);
    } catch (error) {
      return validators.messages(key, value) ?? describeError(error);
    }
  }
  return validators.messages(key, value) ?? 'invalid value';
}

/** The Tasks of `owner`'s log in sequence order, skipping (and quarantining) invalid records: the log is checked as it is read (see checkedOnRead.ts). */
export function readMessages(deps: CheckedReadDeps, owner: string, page: Page): Task[] {
  if (page.limit === 0) return [];
  const range = {
    ...seqRange(owner),
    ...(page.offset === undefined ? {} : { offset: Math.max(0, Math.floor(page.offset)) }),
    ...(page.limit === undefined ? {} : { limit: Math.max(0, Math.floor(page.limit)) }),
  };
  const tasks: Task[] = [];
  for (const entry of entries(deps.dbs.messages, range)) {
    const task = 'undecodable' in entry ? `undecodable: ${describeError(entry.undecodable)}` : taskOf(entry.key, entry.value);
    if (typeof task === 'string') moveAside(deps, 'messages', entry.key, task);
    else tasks.push(task);
  }
  return tasks;
}

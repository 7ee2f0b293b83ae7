import type { Database, Key } from 'lmdb';
import { type ChatMessage, type Task, parseTask } from '../task/index.js';
import { isNameKey, nameRange, seqRange } from './keys.js';
import type { Page } from './types.js';

// Everything read back was validated on open or before it was written, so reads cast
// instead of parsing again, except Tasks: `parseTask` makes them frozen Tasks the bus trusts.
// The sub-dbs checked on read (checkedOnRead.ts) are read through `entries`, and checked by their readers.

/** Every value of a sub-db, in key order. */
export function allValues<T>(db: Database<unknown>): T[] {
  return [...db.getRange()].map(({ value }) => value as T);
}

function pageOptions(page: Page): { offset?: number; limit?: number } {
  return {
    ...(page.offset === undefined ? {} : { offset: Math.max(0, Math.floor(page.offset)) }),
    ...(page.limit === undefined ? {} : { limit: Math.max(0, Math.floor(page.limit)) }),
  };
}

/** The Tasks of a `seq` sub-db (the inbox), in sequence order. */
export function sequencedTasks(db: Database<unknown>, page: Page): Task[] {
  if (page.limit === 0) return [];
  return [...db.getRange(pageOptions(page))].map(({ value }) => parseTask((value as { task: unknown }).task));
}

/** The last `count` Tasks of a sub-db of `{ task }` records keyed by sequence number, in order. */
export function latestTasks(db: Database<unknown>, count: number): Task[] {
  if (count <= 0) return [];
  return [...db.getRange({ reverse: true, limit: count })].reverse().map(({ value }) => parseTask((value as { task: unknown }).task));
}

/** An agent's conversation steps in order, without the record version. */
export function conversationSteps(db: Database<unknown>, agentId: string): ChatMessage[] {
  return [...db.getRange(seqRange(agentId))].map(({ value }) => {
    // Validated on open; only an assistant message may lack a field (`toolCalls`, see the schema).
    const { v: _v, ...step } = value as { v: 1; role: ChatMessage['role']; toolCalls?: unknown };
    return (step.role === 'assistant' && step.toolCalls === undefined ? { ...step, toolCalls: [] } : step) as ChatMessage;
  });
}

/** The second half of every `[owner, name]` key of one owner. */
export function ownedNames(db: Database<unknown>, owner: string): string[] {
  return [...db.getKeys(nameRange(owner))].flatMap((key) => (isNameKey(key) && key[0] === owner ? [key[1]] : []));
}

/** A record as read from a sub-db checked on read (checkedOnRead.ts): its decoded value, or why it did not decode. */
export type Entry = { readonly key: Key; readonly value: unknown } | { readonly key: Key; readonly undecodable: unknown };

/** The entries of a range; should a value not decode, key by key, so one bad value cannot hide the rest. */
export function entries(db: Database<unknown>, range: { start?: Key; end?: Key; offset?: number; limit?: number }): Entry[] {
  try {
    return [...db.getRange(range)].map(({ key, value }) => ({ key, value }));
  } catch {
    return [...db.getKeys(range)].map((key) => {
      try {
        return { key, value: db.get(key) };
      } catch (error) {
        return { key, undecodable: error };
      }
    });
  }
}

/** The first or last number key of a sub-db keyed by sequence numbers, if it has any. */
export function endKey(db: Database<unknown>, end: 'first' | 'last'): number | undefined {
  for (const key of db.getKeys({ reverse: end === 'last', limit: 1 })) if (typeof key === 'number') return key;
  return undefined;
}

import type { Database, Key } from 'lmdb';
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type Task, parseTask } from '../task/index.js';
import type { InFlightView } from './inFlight.js';
import { seqRange, showKey } from './keys.js';
import { nextQuarantineSeq, quarantineEntry } from './quarantine.js';
import type { Page, SubDbs } from './types.js';
import { validators } from './validators.js';
import type { DurableWriter } from './writer.js';

/**
 * The message log is validated when it is read, not when the store opens. It holds most of the
 * records (every Task of every tree) and nothing of a restart needs it, so opening checks only
 * its keys: with 100,000 logged Tasks that is most of the time a reopen took. The guarantee
 * moves with it: a record that fails validation is never returned and never crashes the
 * reader; the read that finds it skips it, and a durable write moves it to the quarantine and
 * reports it, as opening would have. Until then `quarantined()` does not list it.
 */
export interface MessageLogDeps {
  readonly dbs: SubDbs;
  readonly view: InFlightView;
  readonly writer: DurableWriter;
  readonly logger: Logger;
  readonly clock: Clock;
}

type Entry = { readonly key: Key; readonly value: unknown } | { readonly key: Key; readonly undecodable: unknown };

/** The entries of a range; should a value not decode, key by key, so one bad value cannot hide the rest. */
function entries(db: Database<unknown>, range: { start: Key; end: Key; offset?: number; limit?: number }): Entry[] {
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

/** The Tasks of `owner`'s log in sequence order, skipping (and quarantining) invalid records. */
export function readMessages(deps: MessageLogDeps, owner: string, page: Page): Task[] {
  if (page.limit === 0) return [];
  const range = {
    ...seqRange(owner),
    ...(page.offset === undefined ? {} : { offset: Math.max(0, Math.floor(page.offset)) }),
    ...(page.limit === undefined ? {} : { limit: Math.max(0, Math.floor(page.limit)) }),
  };
  const tasks: Task[] = [];
  for (const entry of entries(deps.dbs.messages, range)) {
    const task = 'undecodable' in entry ? `undecodable: ${describeError(entry.undecodable)}` : taskOf(entry.key, entry.value);
    if (typeof task === 'string') moveAside(deps, entry.key, task);
    else tasks.push(task);
  }
  return tasks;
}

/** Moves an invalid message record to the quarantine with an ordinary durable write, once. */
function moveAside(deps: MessageLogDeps, key: Key, reason: string): void {
  const { dbs, view, writer, logger, clock } = deps;
  const pending = `quarantining\u0000${showKey(key)}`;
  if (view.read(pending, () => false)) return;
  writer
    .run('quarantine', false, () => {
      const seq = view.read('seq\u0000quarantine', () => nextQuarantineSeq(dbs.quarantine));
      const entry = quarantineEntry(dbs, { db: 'messages', key, reason }, clock.now());
      return {
        ops: [
          { db: dbs.quarantine, key: seq, value: entry },
          { db: dbs.messages, key, remove: true },
        ],
        updates: [
          { key: 'seq\u0000quarantine', value: seq + 1, pinned: true },
          { key: pending, value: true },
        ],
        result: undefined,
      };
    })
    .then(
      () => logger.warn({ db: 'messages', key: showKey(key), reason }, 'quarantined an invalid org record'),
      (error: unknown) =>
        logger.error({ db: 'messages', key: showKey(key), reason, error: describeError(error) }, 'could not quarantine an invalid org record'),
    );
}

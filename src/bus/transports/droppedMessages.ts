import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { SummarisedWarning } from '../../summarisedWarning.js';
import type { MalformedKind } from './wireMessage.js';

/** Why a transport dropped a message from the wire: malformed, or a Task it would not run. */
export type DropKind = MalformedKind | 'replayed' | 'sender_over_limit';

/** The last malformed message, and the subscriptions that handed it over. */
interface LastMalformed {
  readonly subject: string;
  readonly payload: string;
  readonly seenBy: Set<object>;
}

/**
 * The messages a transport dropped: counted, and warned of in one summarising line per interval
 * (`dropped a message from NATS`). A bus whose subscriptions overlap is handed one copy of a
 * message per subscription; copies come one behind the other, so the same message from another
 * subscription right after the first is that message again, and counts once.
 */
export class DroppedMessages {
  readonly #warning: SummarisedWarning<DropKind>;
  #count = 0;
  #last: LastMalformed | undefined;

  constructor(logger: Logger, clock: Clock, intervalMs: number) {
    this.#warning = new SummarisedWarning<DropKind>(logger, clock, 'dropped a message from NATS', intervalMs);
  }

  /** Messages dropped so far. */
  get count(): number {
    return this.#count;
  }

  /**
   * A malformed message, read from `subject` through the subscription `via` (none for a mailbox's
   * message, which is its own stored copy); false when it is a copy of the one just counted.
   */
  malformed(kind: MalformedKind, subject: string, payload: string, reason: string, via: object | undefined): boolean {
    const last = this.#last;
    if (via !== undefined && last !== undefined && last.subject === subject && last.payload === payload && !last.seenBy.has(via)) {
      last.seenBy.add(via);
      return false;
    }
    this.#last = via === undefined ? undefined : { subject, payload, seenBy: new Set([via]) };
    this.drop(kind, { subject, reason });
    return true;
  }

  /** Any other message dropped, with what says which and why. */
  drop(kind: DropKind, fields: Record<string, unknown>): void {
    this.#count++;
    this.#warning.add(kind, fields);
  }

  /** Logs what the current interval counted. */
  close(): void {
    this.#warning.close();
  }
}

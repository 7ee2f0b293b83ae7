import { randomBytes } from 'node:crypto';
import { Subject, type Observable, type Subscription } from 'rxjs';
import { DebugRing } from '../bus/index.js';
import type { Runtime } from '../runtime/index.js';
import { type Approval, type Task, redactApproval } from '../task/index.js';
import type { Redactor } from './redact.js';

/** Where a reconnecting client's `Last-Event-ID` says it got to: a server's run, and the number of the event within it. */
export interface EventPosition {
  /** The run of the server that sent it; null for a bare number, which no server sends any more. */
  readonly run: string | null;
  readonly seq: number;
}

/** Something that happened to an approval, as the event stream sends it (`event: approval`). */
export interface ApprovalNews {
  readonly type: 'waiting' | 'decided';
  readonly approval: Approval;
}

/** What an event is of: a bus Task (`event: task`) or an approval asked for or decided (`event: approval`). */
export type LoggedSubject = { readonly kind: 'task'; readonly task: Task } | { readonly kind: 'approval'; readonly news: ApprovalNews };

/** One event as every event stream sends it: its server-wide id (`<run>-<seq>`) and its redacted JSON. */
export class LoggedEvent {
  #data: string | undefined;

  constructor(
    readonly id: string,
    readonly seq: number,
    readonly subject: LoggedSubject,
    readonly redactor: Redactor,
  ) {}

  /**
   * Redacted and serialised once, when a stream first sends it: nothing is spent while no one
   * listens. The JSON is redacted again as written (ids included: a client may have named a
   * task tree with a secret), never into invalid JSON.
   */
  get data(): string {
    this.#data ??= this.redactor.json(JSON.stringify(this.#shown()));
    return this.#data;
  }

  #shown(): Task | ApprovalNews {
    const { subject, redactor } = this;
    if (subject.kind === 'task') return redactor.task(subject.task);
    return { type: subject.news.type, approval: redactApproval(subject.news.approval, redactor) };
  }
}

/** What a reconnecting client gets: the events after its id, or `reset` when some are gone. */
export type Replay = { readonly kind: 'events'; readonly events: readonly LoggedEvent[] } | { readonly kind: 'reset'; readonly reason: string };

/** A name for one server's run: 64 random bits, so two runs (a restart) never share one. */
function newRun(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Every bus Task and approval event numbered once for the whole server (so an id means the same on every stream)
 * and redacted at most once, with the newest `capacity` kept for clients that reconnect with
 * `Last-Event-ID`. An id is the server's run and a number counted from 1 in it (`3f9a…-42`),
 * so ids are unique across restarts: a client holding an id of another run (the server
 * restarted), one this run never gave, or one already dropped from the buffer, is told to start
 * over instead of being sent the wrong events or silently missing what happened in between.
 */
export class EventLog {
  /** This server's run: the first part of every id it gives. */
  readonly run: string;
  readonly #recent: DebugRing<LoggedEvent>;
  readonly #live = new Subject<LoggedEvent>();
  readonly #subscriptions: Subscription[];
  #lastSeq = 0;

  constructor(runtime: Runtime, redactor: Redactor, capacity: number, run: string = newRun()) {
    this.run = run;
    this.#recent = new DebugRing(capacity);
    const log = (subject: LoggedSubject): void => {
      this.#lastSeq += 1;
      const event = new LoggedEvent(`${this.run}-${this.#lastSeq}`, this.#lastSeq, subject, redactor);
      this.#recent.push(event);
      this.#live.next(event);
    };
    // Both are published synchronously: an approval's news is numbered between the Tasks it fell between.
    this.#subscriptions = [
      runtime.events('*').subscribe({ next: (task) => log({ kind: 'task', task }), complete: () => this.#live.complete() }),
      runtime.approvalEvents().subscribe((news) => log({ kind: 'approval', news })),
    ];
  }

  /** The id of the newest event so far (`<run>-0` before the first). */
  get lastId(): string {
    return `${this.run}-${this.#lastSeq}`;
  }

  /** Events as they are published; completes when the bus closes. */
  get live(): Observable<LoggedEvent> {
    return this.#live;
  }

  /** The events after `last`, oldest first, if it is this run's and the buffer still holds all of them. */
  since(last: EventPosition): Replay {
    const { run, seq } = last;
    if (run !== this.run) {
      const given = run === null ? String(seq) : `${run}-${seq}`;
      return { kind: 'reset', reason: `event ${given} was sent before this server restarted (this run's ids are ${this.run}-1 onwards)` };
    }
    if (seq > this.#lastSeq) return { kind: 'reset', reason: `event ${run}-${seq} was never sent (the last is ${this.lastId})` };
    const events = this.#recent.items().filter((event) => event.seq > seq);
    const oldest = events[0]?.seq ?? this.#lastSeq + 1;
    if (oldest > seq + 1) {
      return { kind: 'reset', reason: `events ${run}-${seq + 1} to ${run}-${oldest - 1} are no longer in the replay buffer (replayBufferEvents)` };
    }
    return { kind: 'events', events };
  }

  close(): void {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
  }
}

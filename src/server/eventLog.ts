import { Subject, type Observable, type Subscription } from 'rxjs';
import { DebugRing } from '../bus/index.js';
import type { Runtime } from '../runtime/index.js';
import type { Task } from '../task/index.js';
import type { Redactor } from './redact.js';

/** One bus Task as every event stream sends it: its server-wide id and its redacted JSON. */
export class LoggedEvent {
  #data: string | undefined;

  constructor(
    readonly id: number,
    readonly task: Task,
    readonly redactor: Redactor,
  ) {}

  /**
   * Redacted and serialised once, when a stream first sends it: nothing is spent while no one
   * listens. The JSON is redacted again as written (ids included: a client may have named a
   * task tree with a secret), never into invalid JSON.
   */
  get data(): string {
    this.#data ??= this.redactor.json(JSON.stringify(this.redactor.task(this.task)));
    return this.#data;
  }
}

/** What a reconnecting client gets: the events after its id, or `reset` when some are gone. */
export type Replay = { readonly kind: 'events'; readonly events: readonly LoggedEvent[] } | { readonly kind: 'reset'; readonly reason: string };

/**
 * Every bus Task numbered once for the whole server (so an id means the same on every stream)
 * and redacted at most once, with the newest `capacity` kept for clients that reconnect with
 * `Last-Event-ID`. Ids start at 1 with each server; a client holding an id this server never
 * gave, or one already dropped from the buffer, is told to start over instead of silently
 * missing what happened in between.
 */
export class EventLog {
  readonly #recent: DebugRing<LoggedEvent>;
  readonly #live = new Subject<LoggedEvent>();
  readonly #subscription: Subscription;
  #lastId = 0;

  constructor(runtime: Runtime, redactor: Redactor, capacity: number) {
    this.#recent = new DebugRing(capacity);
    this.#subscription = runtime.events('*').subscribe({
      next: (task) => {
        this.#lastId += 1;
        const event = new LoggedEvent(this.#lastId, task, redactor);
        this.#recent.push(event);
        this.#live.next(event);
      },
      complete: () => this.#live.complete(),
    });
  }

  /** The id of the newest event so far (0 before the first). */
  get lastId(): number {
    return this.#lastId;
  }

  /** Events as they are published; completes when the bus closes. */
  get live(): Observable<LoggedEvent> {
    return this.#live;
  }

  /** The events after `lastId`, oldest first, if the buffer still holds all of them. */
  since(lastId: number): Replay {
    if (lastId > this.#lastId) return { kind: 'reset', reason: `event ${lastId} was not sent by this server (its last is ${this.#lastId}): it restarted` };
    const events = this.#recent.items().filter((event) => event.id > lastId);
    const oldest = events[0]?.id ?? this.#lastId + 1;
    if (oldest > lastId + 1) return { kind: 'reset', reason: `events ${lastId + 1} to ${oldest - 1} are no longer in the replay buffer (replayBufferEvents)` };
    return { kind: 'events', events };
  }

  close(): void {
    this.#subscription.unsubscribe();
  }
}

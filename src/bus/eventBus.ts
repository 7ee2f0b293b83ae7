import { Observable, Subject, type Subscription } from 'rxjs';
import { onAbort } from '../abort.js';
import { type Clock, type TimerHandle, systemClock } from '../clock.js';
import { RequestTimeoutError, TroupeError, describeError, errorCodeOf } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { type Task, finalStatuses, isParsedTask, isReply, parseTask } from '../task/index.js';
import { DebugRing } from './debugRing.js';
import { parsePattern, prefixesOf } from './pattern.js';
import { InProcessTransport, type Transport } from './transport.js';

/** A subscriber that threw (or rejected) while handling a Task. */
export interface BusFault {
  readonly subscriber: string;
  readonly task: Task;
  readonly error: unknown;
}

export interface EventBusOptions {
  transport?: Transport;
  clock?: Clock;
  /** How many recent Tasks to keep for debugging (0 = none). The bus keeps no other history. */
  debugRing?: number;
  /** Where a subscriber's fault goes when nobody observes `faults$`; nowhere when absent. */
  logger?: Logger;
}

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Which Tasks a subscriber wants: those addressed to an agent, or those of an action pattern. */
export type Selector = { readonly to: string } | { readonly pattern: string };

interface PendingRequest {
  readonly to: string;
  readonly resolve: (task: Task) => void;
  readonly reject: (error: TroupeError) => void;
  readonly settle: () => void;
}

/**
 * The pure transport between actors: it routes Tasks, never changes them, and keeps no
 * history beyond a small debug ring. Delivery to one target costs the same whether there
 * are ten agents or ten thousand (a map lookup, never a scan of subscribers).
 */
export class EventBus {
  readonly #transport: Transport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #ring: DebugRing<Task>;
  readonly #targets = new Map<string, Subject<Task>>();
  readonly #exact = new Map<string, Subject<Task>>();
  readonly #prefixes = new Map<string, Subject<Task>>();
  readonly #all = new Subject<Task>();
  readonly #pending = new Map<string, PendingRequest>();
  readonly #faults = new Subject<BusFault>();
  // Tasks published while another is being delivered wait here, so every observer sees
  // Tasks in publish order even when handlers publish replies synchronously.
  readonly #queue: Task[] = [];
  // Tasks a transport hands over for their target only: its observers saw them already (see `Transport.attach`).
  readonly #targetOnly = new WeakSet<Task>();
  // Only a bus holding durable mailboxes ever gets one: every other bus skips the lookup.
  #anyTargetOnly = false;
  #delivering = false;

  /** Subscribers that threw. Without an observer here, faults go to the bus's logger. */
  readonly faults$: Observable<BusFault> = this.#faults.asObservable();

  constructor(options: EventBusOptions = {}) {
    this.#transport = options.transport ?? new InProcessTransport();
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#ring = new DebugRing(options.debugRing ?? 64);
    this.#transport.attach((task, only) => {
      if (only === 'target') {
        this.#targetOnly.add(task);
        this.#anyTargetOnly = true;
      }
      this.#enqueue(task);
    });
  }

  get transport(): Transport {
    return this.#transport;
  }

  /**
   * Sends a Task on its way (fire-and-forget). A value not made by `createTask`, `parseTask`
   * or `replyTo` is validated and a frozen copy is sent; an invalid one throws ValidationError.
   * A final reply too large for the transport is replaced by a `failed` one saying so (logged):
   * its asker learns now instead of waiting out its timeout for an answer that cannot travel.
   */
  publish(task: Task): void {
    const parsed = isParsedTask(task) ? task : parseTask(task);
    try {
      this.#transport.send(parsed);
    } catch (error) {
      if (errorCodeOf(error) !== 'task_too_large' || !finalStatuses.has(parsed.status)) throw error;
      const message = `the answer could not be sent: ${describeError(error)}`;
      this.#logger.warn({ taskId: parsed.id, from: parsed.from, to: parsed.to }, 'replaced a reply too large to send with a failure');
      this.#transport.send(parseTask({ ...parsed, status: 'failed', result: null, error: { code: 'task_too_large', message } }));
    }
  }

  /** Every Task whose action matches `*`, `prefix.*` or an exact action name. */
  on(pattern: string): Observable<Task> {
    const parsed = parsePattern(pattern);
    switch (parsed.kind) {
      case 'all':
        return this.#stream(undefined, '*', { pattern });
      case 'prefix':
        return this.#stream(this.#prefixes, parsed.prefix, { pattern });
      case 'exact':
        return this.#stream(this.#exact, parsed.action, { pattern });
      default:
        return unreachable(parsed);
    }
  }

  /** Every Task addressed to `target`, except replies consumed by a pending `request`. */
  to(target: string): Observable<Task> {
    return this.#stream(this.#targets, target, { target });
  }

  /**
   * Calls `handler` for each selected Task. A handler that throws or rejects is isolated:
   * the fault is reported on `faults$` and every other subscriber still receives the Task.
   */
  subscribe(selector: Selector, handler: (task: Task) => unknown, name = describeSelector(selector)): Subscription {
    const source = 'to' in selector ? this.to(selector.to) : this.on(selector.pattern);
    // A transport that refuses the interest (at its limit, a target it cannot route) errors the
    // stream as it is subscribed; that refusal is thrown here, to the caller, not left unhandled.
    let refused: { error: unknown } | undefined;
    const subscription = source.subscribe({
      next: (task) => {
        try {
          const result = handler(task);
          if (result instanceof Promise) result.catch((error: unknown) => this.#fault(name, task, error));
        } catch (error) {
          this.#fault(name, task, error);
        }
      },
      error: (error: unknown) => {
        refused = { error };
      },
    });
    if (refused !== undefined) throw refused.error;
    return subscription;
  }

  /**
   * Answers Tasks addressed to `target` with the Task `responder` returns, published exactly
   * as returned: the bus never overwrites a handler's status.
   */
  serve(target: string, responder: (task: Task) => Task | undefined | Promise<Task | undefined>): Subscription {
    return this.subscribe(
      { to: target },
      async (task) => {
        const reply = await responder(task);
        if (reply !== undefined) this.publish(reply);
      },
      `serve:${target}`,
    );
  }

  /**
   * Publishes `task` and resolves with the receiver's reply: a Task with the same id, from
   * the receiver, whose status is final or `input-required`.
   */
  request(task: Task, options: RequestOptions): Promise<Task> {
    if (this.#pending.has(task.id)) {
      return Promise.reject(new TroupeError('duplicate_request', `a request for task ${task.id} is already waiting`));
    }
    return new Promise<Task>((resolve, reject) => {
      // Validate before registering anything: a throw here rejects with nothing left pending.
      const checked = isParsedTask(task) ? task : parseTask(task);
      const { signal } = options;
      if (signal?.aborted) {
        reject(new TroupeError('aborted', `request for task ${task.id} aborted`, { cause: signal.reason }));
        return;
      }
      const withdraw = this.#transport.declare({ target: task.from });
      let stopWatching = (): void => undefined;
      const settle = (): void => {
        this.#pending.delete(task.id);
        this.#clock.clearTimeout(timer);
        stopWatching();
        withdraw();
      };
      // Declared after `settle`, which only runs once this timer exists.
      const timer: TimerHandle = this.#clock.setTimeout(() => {
        settle();
        reject(new RequestTimeoutError(task.id, options.timeoutMs));
      }, options.timeoutMs);
      if (signal !== undefined) {
        stopWatching = onAbort(signal, () => {
          settle();
          reject(new TroupeError('aborted', `request for task ${task.id} aborted`, { cause: signal.reason }));
        });
      }
      this.#pending.set(task.id, { to: task.to, resolve, reject, settle });
      this.publish(checked);
    });
  }

  /**
   * Whether a Task to `target` with `action` would reach anyone: a subscriber here, or any bus
   * elsewhere. Lets a sender skip building Tasks nobody would see (streamed observations).
   */
  wants(target: string, action: string): boolean {
    if (this.#transport.reachesOtherBuses || this.#all.observed || this.#exact.has(action) || this.#targets.has(target)) return true;
    if (this.#prefixes.size === 0) return false;
    return this.#prefixesOf(action).some((prefix) => this.#prefixes.has(prefix));
  }

  /** The last few Tasks delivered, oldest first (debugging only). */
  recent(): readonly Task[] {
    return this.#ring.items();
  }

  /** How many requests are waiting for a reply. */
  get pendingRequests(): number {
    return this.#pending.size;
  }

  async close(): Promise<void> {
    for (const [taskId, pending] of [...this.#pending.entries()]) {
      pending.settle();
      pending.reject(new TroupeError('aborted', `the bus closed before task ${taskId} was answered`, { context: { taskId } }));
    }
    await this.#transport.close();
    for (const subject of [...this.#targets.values(), ...this.#exact.values(), ...this.#prefixes.values()]) {
      subject.complete();
    }
    this.#all.complete();
    this.#faults.complete();
  }

  #enqueue(task: Task): void {
    if (this.#delivering) {
      this.#queue.push(task);
      return;
    }
    this.#delivering = true;
    try {
      this.#deliver(task);
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) this.#deliver(next);
    } finally {
      this.#delivering = false;
    }
  }

  #deliver(task: Task): void {
    if (!this.#anyTargetOnly || !this.#targetOnly.has(task)) this.#observe(task);
    const pending = this.#pending.get(task.id);
    if (pending !== undefined && pending.to === task.from && isReply(task)) {
      pending.settle();
      pending.resolve(task);
      return;
    }
    this.#targets.get(task.to)?.next(task);
  }

  #observe(task: Task): void {
    this.#ring.push(task);
    // Observers by action first, so a log sees a request before any reply it provokes.
    this.#exact.get(task.action)?.next(task);
    if (this.#prefixes.size > 0) {
      for (const prefix of this.#prefixesOf(task.action)) this.#prefixes.get(prefix)?.next(task);
    }
    if (this.#all.observed) this.#all.next(task);
  }

  // Actions are few and repeat, so their prefixes are worked out once each (bounded, in case they don't).
  readonly #prefixCache = new Map<string, readonly string[]>();
  #prefixesOf(action: string): readonly string[] {
    let prefixes = this.#prefixCache.get(action);
    if (prefixes === undefined) {
      prefixes = prefixesOf(action);
      if (this.#prefixCache.size >= 4096) this.#prefixCache.clear();
      this.#prefixCache.set(action, prefixes);
    }
    return prefixes;
  }

  #stream(map: Map<string, Subject<Task>> | undefined, key: string, interest: { target: string } | { pattern: string }): Observable<Task> {
    return new Observable<Task>((subscriber) => {
      // First: an interest the transport refuses (it throws) leaves no route behind.
      const withdraw = this.#transport.declare(interest);
      let subject = map === undefined ? this.#all : map.get(key);
      if (subject === undefined) {
        subject = new Subject<Task>();
        map?.set(key, subject);
      }
      const inner = subject.subscribe(subscriber);
      const owned = subject;
      return () => {
        inner.unsubscribe();
        withdraw();
        if (map !== undefined && !owned.observed && map.get(key) === owned) map.delete(key);
      };
    });
  }

  #fault(subscriber: string, task: Task, error: unknown): void {
    if (this.#faults.observed) this.#faults.next({ subscriber, task, error });
    else this.#logger.error({ subscriber, taskId: task.id, error: describeError(error) }, 'bus subscriber failed');
  }
}

function describeSelector(selector: Selector): string {
  return 'to' in selector ? `to:${selector.to}` : `on:${selector.pattern}`;
}

function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

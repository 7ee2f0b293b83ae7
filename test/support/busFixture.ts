import { EventBus, InProcessTransport, type Interest, type Transport } from '../../src/bus/index.js';
import { TroupeError } from '../../src/errors.js';
import { type IdGenerator, sequentialIds } from '../../src/ids.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, type TaskInit, type TaskStatus, createTask, replyTo } from '../../src/task/index.js';

// Shared by the EventBus tests: a bus on a simulated clock, a transport that counts interests,
// and small helpers to watch deliveries and settlements.

/** Wraps the in-process transport and counts declared interests, so tests can see withdrawal. */
export class RecordingTransport implements Transport {
  readonly name = 'recording';
  constructor(readonly reachesOtherBuses = false) {}
  readonly #inner = new InProcessTransport();
  readonly live = new Map<string, number>();
  /** An interest (`target:<id>` or `pattern:<p>`) whose declaration throws, as a transport at its limit does. */
  refuse: string | undefined;

  attach(deliver: (task: Task) => void): void {
    this.#inner.attach(deliver);
  }

  send(task: Task): void {
    this.#inner.send(task);
  }

  declare(interest: Interest): () => void {
    const key = 'target' in interest ? `target:${interest.target}` : `pattern:${interest.pattern}`;
    if (key === this.refuse) throw new Error(`${key} refused`);
    this.live.set(key, (this.live.get(key) ?? 0) + 1);
    let withdrawn = false;
    return () => {
      if (withdrawn) return;
      withdrawn = true;
      const left = (this.live.get(key) ?? 0) - 1;
      if (left === 0) this.live.delete(key);
      else this.live.set(key, left);
    };
  }

  flush(): Promise<void> {
    return this.#inner.flush();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

export interface BusHarness {
  readonly bus: EventBus;
  readonly clock: SimulatedClock;
  readonly ids: IdGenerator;
  readonly task: (init?: Partial<TaskInit>) => Task;
  readonly reply: (to: Task, status: TaskStatus, result?: string) => Task;
}

export function busHarness(options: { debugRing?: number; transport?: Transport } = {}): BusHarness {
  const clock = new SimulatedClock();
  const ids = sequentialIds();
  const bus = new EventBus({ clock, ...options });
  return {
    bus,
    clock,
    ids,
    task: (init = {}) => createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'hi' }, ...init }, { ids, clock }),
    reply: (to, status, result) => replyTo(to, { status, ...(result === undefined ? {} : { result }) }, clock),
  };
}

export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

/** Lets pending promise callbacks run (one macrotask turn); no time passes on the simulated clock. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type Outcome = { state: 'pending' } | { state: 'resolved'; value: Task } | { state: 'rejected'; error: unknown };

/** Watches a promise so a test can ask whether it has settled yet. */
export function track(promise: Promise<Task>): { readonly outcome: Outcome } {
  const tracked: { outcome: Outcome } = { outcome: { state: 'pending' } };
  promise.then(
    (value) => {
      tracked.outcome = { state: 'resolved', value };
    },
    (error: unknown) => {
      tracked.outcome = { state: 'rejected', error };
    },
  );
  return tracked;
}

export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** The TroupeError `run` throws (anything else thrown is rethrown; nothing thrown fails the test). */
export function troupeErrorOf(run: () => unknown): TroupeError {
  try {
    run();
  } catch (error) {
    if (error instanceof TroupeError) return error;
    throw error;
  }
  throw new Error('expected a TroupeError');
}

export function collect(source: { subscribe(next: (task: Task) => void): unknown }): Task[] {
  const seen: Task[] = [];
  source.subscribe((task) => seen.push(task));
  return seen;
}

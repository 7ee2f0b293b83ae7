import { TroupeError } from '../../errors.js';

/** Gives a slot back; calling it more than once gives back one slot. */
export type ReleaseSlot = () => void;

interface Waiter {
  readonly grant: (release: ReleaseSlot) => void;
  readonly fail: (error: unknown) => void;
}

/**
 * The society's model calls in flight at once: at most `maxConcurrent` run, the rest wait in a
 * queue (oldest first) of at most `maxQueued`; one more is refused with `model_queue_full`. A
 * waiter whose signal aborts (its agent was terminated) leaves the queue at once. Every agent of
 * a runtime, restored ones included, calls its model through the one limiter, so a restart that
 * resumes thousands of Tasks runs them `maxConcurrent` at a time.
 */
export class ModelCallLimiter {
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  #running = 0;
  // A Set keeps insertion order and drops an aborted waiter in O(1).
  readonly #queue = new Set<Waiter>();

  constructor(limits: { maxConcurrent: number; maxQueued: number }) {
    this.#maxConcurrent = limits.maxConcurrent;
    this.#maxQueued = limits.maxQueued;
  }

  /** Calls running now. */
  get running(): number {
    return this.#running;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.#queue.size;
  }

  /** A slot's release when a slot is free now and nobody waits for one; null otherwise (the caller does not queue). */
  tryAcquire(): ReleaseSlot | null {
    if (this.#running >= this.#maxConcurrent || this.#queue.size > 0) return null;
    this.#running++;
    return this.#releaser();
  }

  /** Resolves with a slot's release once a slot is free; rejects when the queue is full or `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (this.#running < this.#maxConcurrent) {
      this.#running++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.size >= this.#maxQueued) {
      return Promise.reject(
        new TroupeError(
          'model_queue_full',
          `${this.#maxQueued} model calls are already waiting for one of ${this.#maxConcurrent} slots (maxQueuedModelCalls); try again later`,
          {
            context: { maxQueued: this.#maxQueued, maxConcurrent: this.#maxConcurrent },
          },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#queue.delete(waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: reject,
      };
      this.#queue.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(): ReleaseSlot {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      // The slot passes straight to the oldest waiter, so a newcomer cannot jump the queue.
      const next = this.#queue.values().next();
      if (next.done === true) {
        this.#running--;
        return;
      }
      this.#queue.delete(next.value);
      next.value.grant(this.#releaser());
    };
  }
}

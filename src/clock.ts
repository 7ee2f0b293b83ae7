import { onAbort } from './abort.js';

/** Opaque handle of a scheduled callback. */
export type TimerHandle = { readonly __timer: unique symbol } | ReturnType<typeof setTimeout>;

/**
 * Time as troupe sees it. Injected everywhere a timeout or timestamp is taken, so tests
 * run on a simulated clock instead of real sleeps.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Lets the process exit while `handle` waits (a Node timer's `unref`), for timers that only
 * look for work, never finish any: a program that never shuts its runtime down still ends.
 * A simulated clock's handles have nothing to let go of.
 */
export function unrefTimer(handle: TimerHandle): void {
  if (typeof handle === 'object' && 'unref' in handle && typeof handle.unref === 'function') handle.unref();
}

/** Resolves after `ms` on the given clock, or rejects when the signal aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let stopWatching = (): void => undefined;
    const handle = clock.setTimeout(() => {
      stopWatching();
      resolve();
    }, ms);
    if (signal !== undefined) {
      stopWatching = onAbort(signal, () => {
        clock.clearTimeout(handle);
        reject(signal.reason);
      });
    }
  });
}

import { type Observable, merge } from 'rxjs';
import type { Clock } from '../../clock.js';
import { onAbort } from '../../abort.js';

/**
 * Resolves true once `isQuiet()` holds, or false when `timeoutMs` passes first or `signal` aborts
 * (a drain cut short). `isQuiet` is checked at most once per microtask however many `changes`
 * arrive, so it may be called often. Delivery is synchronous, so a society found quiet stays
 * quiet until new work comes in.
 */
export function waitForQuiet(
  isQuiet: () => boolean,
  changes: readonly Observable<unknown>[],
  timeoutMs: number,
  clock: Clock,
  signal?: AbortSignal,
): Promise<boolean> {
  if (isQuiet()) return Promise.resolve(true);
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    let scheduled = false;
    const finish = (quiet: boolean): void => {
      clock.clearTimeout(timer);
      stopWatching();
      subscription.unsubscribe();
      resolve(quiet);
    };
    const timer = clock.setTimeout(() => finish(false), timeoutMs);
    const stopWatching = signal === undefined ? () => undefined : onAbort(signal, () => finish(false));
    const subscription = merge(...changes).subscribe(() => {
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(() => {
        scheduled = false;
        if (!subscription.closed && isQuiet()) finish(true);
      });
    });
  });
}

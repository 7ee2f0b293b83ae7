import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a wait for spare time sleeps between two looks at the event loop. */
const lookEveryMs = 1;

/**
 * Resolves once the event loop has had time with nothing to do (a sleep of a millisecond of which
 * it spent at least half waiting for events: see `performance.eventLoopUtilization`), or once
 * `stopWaiting()` says so. Work that can wait runs then, taking no time from what a busy process
 * is doing; a process at full load has none, so such work needs a bound of its own.
 */
export async function spareTime(stopWaiting: () => boolean): Promise<void> {
  while (!stopWaiting()) {
    const before = performance.eventLoopUtilization();
    await sleep(lookEveryMs);
    if (performance.eventLoopUtilization(before).idle >= lookEveryMs / 2) return;
  }
}

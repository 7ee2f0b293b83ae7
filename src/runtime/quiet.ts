import type { Observable, Unsubscribable } from 'rxjs';
import type { AnyActor } from 'xstate';
import type { Clock } from '../clock.js';

function isIdle(actor: AnyActor): boolean {
  const snapshot = actor.getSnapshot() as { status: string; value: unknown; context?: { mailbox?: readonly unknown[] } };
  if (snapshot.status !== 'active') return true;
  const value = snapshot.value as Record<string, unknown> | string;
  const idle = typeof value === 'object' && value['running'] === 'idle';
  return idle && (snapshot.context?.mailbox?.length ?? 0) === 0;
}

/**
 * Resolves true once every agent is idle with an empty mailbox and no request awaits a reply,
 * or false when `timeoutMs` passes first. Delivery is synchronous, so a quiet society stays quiet.
 */
export function waitForQuiet(
  actors: () => AnyActor[],
  pendingRequests: () => number,
  /** Anything that may change quietness (every bus Task), including agents spawned while waiting. */
  changes: Observable<unknown>,
  timeoutMs: number,
  clock: Clock,
): Promise<boolean> {
  return new Promise((resolve) => {
    const subscriptions: Unsubscribable[] = [];
    let done = false;
    const finish = (quiet: boolean): void => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      for (const subscription of subscriptions) subscription.unsubscribe();
      resolve(quiet);
    };
    const check = (): void => {
      if (pendingRequests() === 0 && actors().every(isIdle)) finish(true);
    };
    const timer = clock.setTimeout(() => finish(false), timeoutMs);
    for (const actor of actors()) subscriptions.push(actor.subscribe({ next: () => queueMicrotask(check), error: () => queueMicrotask(check) }));
    subscriptions.push(changes.subscribe(() => queueMicrotask(check)));
    check();
  });
}

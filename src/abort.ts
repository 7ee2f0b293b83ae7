// Everyone waiting on one signal shares a single 'abort' listener on it. A turn's signal sees a
// tool call register and unregister on every tool step, and EventTarget's add/remove pair is a
// measurable share of a fast step (3–4 µs of ~30 in the ReAct bench); a Set's add/delete is not.
const waitingOn = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `listener` once when `signal` aborts (at once when it already has); returns the function
 * that cancels it. A listener that throws does not keep the others from running; its error is
 * rethrown afterwards, uncaught, as an EventTarget listener's would be.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  let listeners = waitingOn.get(signal);
  if (listeners === undefined) {
    const created = new Set<() => void>();
    waitingOn.set(signal, created);
    signal.addEventListener('abort', () => runAll(signal, created), { once: true });
    listeners = created;
  }
  // A wrapper per registration: the same function registered twice is two registrations.
  const entry = (): void => listener();
  const registered = listeners;
  registered.add(entry);
  return () => {
    registered.delete(entry);
  };
}

function runAll(signal: AbortSignal, listeners: Set<() => void>): void {
  waitingOn.delete(signal);
  // The live set: one cancelled by an earlier listener does not run, as with EventTarget.
  for (const listener of listeners) {
    try {
      listener();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
  listeners.clear();
}

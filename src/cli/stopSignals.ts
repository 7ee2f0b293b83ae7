/** The signals that stop a long-running command (`serve`, `model-server`). */
export type StopSignal = 'SIGINT' | 'SIGTERM';

const stopSignals: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/** Where SIGINT and SIGTERM come from: the process, in the real CLI. */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
}

/**
 * Calls `onSignal` for every SIGINT and SIGTERM until the function it returns is called. That removes its listeners, so a command that
 * returns leaves the process as it found it: a host that runs it again does not pile up
 * listeners, and once none is left a signal ends the process as it would without troupe.
 */
export function onStopSignals(source: SignalSource, onSignal: (signal: StopSignal) => void): () => void {
  const listeners = stopSignals.map((signal) => {
    const listener = (): void => onSignal(signal);
    source.on(signal, listener);
    return { signal, listener };
  });
  return () => {
    for (const { signal, listener } of listeners) source.off(signal, listener);
  };
}

/** Resolves with the first SIGINT or SIGTERM, and listens no more: a second one is the process's own to handle. */
export async function firstStopSignal(source: SignalSource): Promise<StopSignal> {
  let stopListening = (): void => undefined;
  const first = await new Promise<StopSignal>((resolve) => {
    stopListening = onStopSignals(source, resolve);
  });
  stopListening();
  return first;
}

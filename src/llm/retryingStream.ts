import type { ChatDelta } from './messages.js';

/**
 * The deltas of one chat call across its attempts. While nothing fails, each delta is the
 * inner stream's own result passed straight on (no async generator in between, whose every
 * yield costs several promises), so the retry layer is nearly free on the common path.
 *
 * When the inner stream fails, `beforeRetry` decides: it rejects to give up (the error reaches
 * the consumer), or resolves once it is time to try again; then a `restart` delta announces
 * the new attempt, so the consumer drops what the failed one had sent.
 */
export function retryingStream(
  open: () => AsyncIterable<ChatDelta>,
  beforeRetry: (error: unknown, attempt: number, started: boolean) => Promise<void>,
): AsyncIterable<ChatDelta> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
      // A model whose chat() throws at once is treated like a stream that fails on its first delta.
      const start = (): AsyncIterator<ChatDelta> => {
        try {
          return open()[Symbol.asyncIterator]();
        } catch (error) {
          return { next: () => Promise.reject(error instanceof Error ? error : new Error(String(error))) };
        }
      };
      let inner = start();
      let attempt = 0;
      let started = false;
      const passOn = (result: IteratorResult<ChatDelta>): IteratorResult<ChatDelta> => {
        if (result.done !== true) started = true;
        return result;
      };
      const retry = async (error: unknown): Promise<IteratorResult<ChatDelta>> => {
        await beforeRetry(error, attempt, started);
        attempt += 1;
        started = false;
        inner = start();
        return { done: false, value: { type: 'restart', attempt } };
      };
      return {
        next: () => inner.next().then(passOn, retry),
        // The consumer stopped early (or failed): let the attempt in flight clean up (close its HTTP stream).
        return: async (): Promise<IteratorResult<ChatDelta>> => {
          await inner.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

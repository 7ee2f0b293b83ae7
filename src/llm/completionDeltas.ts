import { APIConnectionTimeoutError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Clock } from '../clock.js';
import { AttemptTimer } from './attemptTimer.js';
import { CompletionChunks } from './completionChunks.js';
import { emptyStreamError, requireEventStream } from './eventStreamResponse.js';
import type { ChatDelta } from './messages.js';
import type { ModelLimits } from './modelLimits.js';
import { chunkToDeltas } from './openaiWire.js';

/** One attempt at a streamed completion: how to send it, within which bounds, and how a failure reads. */
export interface CompletionAttempt {
  /**
   * Sends the request and resolves with the response's headers. The caller's signal and
   * `limits.timeoutMs` go to the SDK, whose own timer bounds the wait for headers: a signal of
   * the attempt's own would cost every call an AbortSignal (about 10 µs on Node 20).
   */
  readonly open: () => Promise<Response>;
  readonly limits: ModelLimits;
  readonly clock: Clock;
  /** The caller's signal: aborting it is an abort, not a timeout. */
  readonly signal: AbortSignal | undefined;
  /** Turns what went wrong into what the caller sees (a model_error, or the abort). */
  readonly failure: (error: unknown) => unknown;
}

/**
 * The deltas of a streamed completion, sent on the first read and bounded by `limits`: the
 * attempt's time, the silence between reads, the reply's bytes. A 200 that is not an event
 * stream, or a stream that ends without a chunk, fails the call; a timeout fails it as the
 * timeout it is (the retry layer retries it). A network read's deltas are handed out from a small
 * queue without another promise each: this sits on every model call's path.
 */
export function completionDeltas(attempt: CompletionAttempt): AsyncIterable<ChatDelta> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
      let timer: AttemptTimer | undefined;
      let chunks: CompletionChunks | undefined;
      let sawChunk = false;
      let queue: ChatDelta[] = [];
      let head = 0;
      const start = async (): Promise<CompletionChunks> => {
        const started = new AttemptTimer(attempt.clock, attempt.limits);
        timer = started;
        const response = await attempt.open();
        if (started.expired !== undefined) {
          // The attempt's time ran out before the headers came (on the injected clock): the SDK's timer is not the only judge.
          void response.body?.cancel().catch(() => undefined);
          throw started.expired;
        }
        // The headers are in: from here on, silence is counted, and a timeout cancels the body.
        started.alive();
        await requireEventStream(response, started);
        const opened = new CompletionChunks(response, { maxReplyBytes: attempt.limits.maxReplyBytes, onRead: started.alive });
        started.onExpire = () => void opened.cancel();
        return opened;
      };
      const pull = async (): Promise<IteratorResult<ChatDelta>> => {
        chunks ??= await start();
        for (;;) {
          const batch = await chunks.next();
          if (batch === null) {
            // A timeout cancels the body, which ends it like any end: it is the timeout that counts.
            if (timer?.expired !== undefined) throw timer.expired;
            timer?.dispose();
            // The caller's abort ends the stream quietly, as the SDK's does, however little came.
            if (!sawChunk && attempt.signal?.aborted !== true) throw emptyStreamError();
            return { done: true, value: undefined };
          }
          sawChunk = true;
          queue = batch.length === 1 ? chunkToDeltas(batch[0] as ChatCompletionChunk) : batch.flatMap(chunkToDeltas);
          head = 0;
          const first = queue[head++];
          if (first !== undefined) return { done: false, value: first };
        }
      };
      const fail = (error: unknown): Promise<never> => {
        timer?.dispose();
        // The SDK's timer only ever times the wait for headers: that is the attempt's timeout too.
        const sdkTimedOut = error instanceof APIConnectionTimeoutError ? timer?.attemptTimeout() : undefined;
        return Promise.reject(attempt.failure(timer?.expired ?? sdkTimedOut ?? error));
      };
      return {
        next: () => {
          const queued = queue[head];
          if (queued === undefined) return pull().catch(fail);
          head += 1;
          return Promise.resolve({ done: false, value: queued });
        },
        // The consumer stopped early: close the HTTP stream.
        return: async (): Promise<IteratorResult<ChatDelta>> => {
          timer?.dispose();
          await chunks?.cancel();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

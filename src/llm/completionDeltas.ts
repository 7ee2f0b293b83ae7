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
  /** Sends the request with `signal` (which the attempt's timeouts abort) and resolves with the response. */
  readonly open: (signal: AbortSignal) => Promise<Response>;
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
        timer = new AttemptTimer(attempt.clock, attempt.limits, attempt.signal);
        const response = await attempt.open(timer.signal);
        await requireEventStream(response);
        // The headers are in: from here on, silence is counted.
        timer.alive();
        return new CompletionChunks(response, { maxReplyBytes: attempt.limits.maxReplyBytes, onRead: timer.alive });
      };
      const pull = async (): Promise<IteratorResult<ChatDelta>> => {
        chunks ??= await start();
        for (;;) {
          const batch = await chunks.next();
          if (batch === null) {
            // A timeout aborts the body, which ends it like any abort: it is the timeout that counts.
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
        return Promise.reject(attempt.failure(timer?.expired ?? error));
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

import { TroupeError } from '../../errors.js';
import type { ChatDelta, ChatRequest, ModelClient } from '../../llm/index.js';
import type { ModelCallLimiter, ReleaseSlot } from './modelCallLimiter.js';

type ChatOptions = Parameters<ModelClient['chat']>[1];
type EmbedOptions = Parameters<ModelClient['embed']>[1];
type Acquire = (signal: AbortSignal | undefined) => Promise<ReleaseSlot>;

/**
 * `model` with every call (chat and embed) taking a slot of `limiter` first and giving it back
 * when the call ends however it ends: its stream read to the end, failed, or left early. The
 * slot is taken on the stream's first read, so a stream never read never waits.
 */
export function limitedModel(model: ModelClient, limiter: ModelCallLimiter): ModelClient {
  return slotted(model, (signal) => limiter.acquire(signal));
}

/**
 * `model` for work that has a fallback of its own (memory compaction's extractive summaries and
 * facts): a call takes a slot of `limiter` only when one is free and no turn waits for one, and
 * is refused (`model_queue_full`) otherwise, so it never waits behind the turns it would delay.
 */
export function unqueuedModel(model: ModelClient, limiter: ModelCallLimiter): ModelClient {
  return slotted(model, () => {
    const release = limiter.tryAcquire();
    if (release !== null) return Promise.resolve(release);
    const busy = `every model slot is taken or waited for by agents' turns (${limiter.running} running, ${limiter.queued} waiting)`;
    return Promise.reject(new TroupeError('model_queue_full', busy));
  });
}

function slotted(model: ModelClient, acquire: Acquire): ModelClient {
  return {
    name: model.name,
    scripted: model.scripted,
    chat: (request: ChatRequest, options?: ChatOptions): AsyncIterable<ChatDelta> => ({
      [Symbol.asyncIterator]: () => limitedStream(() => model.chat(request, options)[Symbol.asyncIterator](), acquire, options?.signal),
    }),
    embed: async (texts: readonly string[], options?: EmbedOptions): Promise<number[][]> => {
      const release = await acquire(options?.signal);
      try {
        return await model.embed(texts, options);
      } finally {
        release();
      }
    },
  };
}

/** The stream `open` makes, opened once a slot is held; the slot goes back when the stream ends. */
function limitedStream(open: () => AsyncIterator<ChatDelta>, acquire: Acquire, signal: AbortSignal | undefined): AsyncIterator<ChatDelta> {
  let inner: AsyncIterator<ChatDelta> | undefined;
  let release: ReleaseSlot = () => undefined;
  return {
    async next() {
      if (inner === undefined) {
        release = await acquire(signal);
        try {
          inner = open();
        } catch (error) {
          release();
          throw error;
        }
      }
      try {
        const result = await inner.next();
        if (result.done === true) release();
        return result;
      } catch (error) {
        release();
        throw error;
      }
    },
    async return(value?: unknown) {
      release();
      return (await inner?.return?.(value)) ?? { done: true, value: undefined };
    },
  };
}

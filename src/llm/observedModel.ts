import { TroupeError } from '../errors.js';
import { ReplyCollector } from './collect.js';
import { type ChatDelta, type ChatRequest, type TokenUsage, usageOnlyReason } from './messages.js';
import type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';
import type { AttemptWatch, ModelCallMeasure, ModelCallSink } from './modelCallWatch.js';

// The error types a measure names stay few (a label of a metric): troupe's codes, an abort, or `_OTHER`.
const errorTypeOf = (error: unknown): string =>
  error instanceof TroupeError ? error.code : error instanceof Error && error.name === 'AbortError' ? 'aborted' : '_OTHER';

// Durations use the monotonic `performance.now()`, not the injected clock: a measure is not an
// input of the run, and reading a recorded or simulated clock would change what a replay sees.
const secondsSince = (start: number): number => (performance.now() - start) / 1000;

/**
 * `model` with each attempt of a call observed in one place: its start, first fragment, end,
 * usage, finish reason and failure, reported to `sink` (the metrics) and to the watcher the call's
 * options name (its span). A call nobody watches goes straight to `model`. Put under the call
 * limiter, a call's time is the provider's, not its wait for a slot.
 */
export function observedModel(model: ModelClient, sink: ModelCallSink | undefined): ModelClient {
  const measuring = (): boolean => sink?.wanted() === true;
  return {
    name: model.name,
    scripted: model.scripted,
    chat: (request: ChatRequest, options?: ChatOptions): AsyncIterable<ChatDelta> => {
      const watcher = options?.watcher;
      if (watcher === undefined && !measuring()) return model.chat(request, options);
      return observedChat(model, request, options, measuring() ? sink : undefined, watcher?.attempt());
    },
    embed: async (texts: readonly string[], options?: EmbedOptions): Promise<number[][]> => {
      if (!measuring()) return model.embed(texts, options);
      const start = performance.now();
      let errorType: string | null = null;
      try {
        return await model.embed(texts, options);
      } catch (error) {
        errorType = errorTypeOf(error);
        throw error;
      } finally {
        const measure = { operation: 'embeddings', model: model.name, seconds: secondsSince(start), firstChunkSeconds: null } as const;
        sink?.report({ ...measure, usage: null, finishReason: null, responseModel: null, errorType });
      }
    },
  };
}

async function* observedChat(
  model: ModelClient,
  request: ChatRequest,
  options: ChatOptions | undefined,
  sink: ModelCallSink | undefined,
  watch: AttemptWatch | undefined,
): AsyncIterable<ChatDelta> {
  const start = performance.now();
  const collector = watch?.wantsReply === true ? new ReplyCollector() : undefined;
  const run = <T>(step: () => Promise<T>): Promise<T> => (watch === undefined ? step() : watch.run(step));
  let firstChunk: number | null = null;
  let usage: TokenUsage | null = null;
  let finishReason: string | null = null;
  let responseModel: string | null = null;
  let failure: { error: unknown } | undefined;
  let done = false;
  let iterator: AsyncIterator<ChatDelta> | undefined;
  try {
    iterator = await run(() => Promise.resolve(model.chat(request, options)[Symbol.asyncIterator]()));
    for (;;) {
      const next: IteratorResult<ChatDelta> = await run(() => (iterator as AsyncIterator<ChatDelta>).next());
      if (next.done === true) break;
      const delta = next.value;
      if (firstChunk === null && (delta.type === 'text' || delta.type === 'tool_call')) firstChunk = secondsSince(start);
      if (delta.type === 'finish') {
        // A provider may send its usage in a finish of its own after the real one: the last one counts.
        usage = delta.usage ?? usage;
        responseModel = delta.model ?? responseModel;
        if (delta.reason !== usageOnlyReason) finishReason = delta.reason;
      }
      collector?.add(delta);
      yield delta;
    }
    done = true;
  } catch (error) {
    failure = { error };
    throw error;
  } finally {
    // Left early by its reader: the provider's stream is closed too.
    if (!done && failure === undefined) await iterator?.return?.();
    const measure: ModelCallMeasure = {
      operation: 'chat',
      model: model.name,
      seconds: secondsSince(start),
      firstChunkSeconds: firstChunk,
      usage,
      finishReason: done ? (finishReason ?? 'stop') : null,
      responseModel,
      errorType: failure === undefined ? null : errorTypeOf(failure.error),
    };
    sink?.report(measure);
    watch?.ended(measure, failure ?? (done && collector !== undefined ? { reply: collector.reply() } : {}));
  }
}

import { TroupeError } from '../errors.js';
import type { ChatDelta, ChatRequest, TokenUsage } from './messages.js';
import type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';

/** One model call as it ended: what the GenAI client metrics (token usage, operation duration) are made of. */
export interface ModelCallMeasure {
  /** `chat` (a completion) or `embeddings`, as the GenAI conventions name them. */
  readonly operation: 'chat' | 'embeddings';
  /** The client's name, e.g. `openai:gpt-4o-mini` or `offline-scripted`. */
  readonly model: string;
  /** From the call's start to its end (its stream read to the end, failed, or left early). */
  readonly seconds: number;
  /** The tokens the provider reported for the call; null when it reported none. */
  readonly usage: TokenUsage | null;
  /** The failure's code (`model_error`, `aborted` …) or `_OTHER`; null when the call succeeded. */
  readonly errorType: string | null;
}

/** Where measures go: asked first whether anyone wants them, so an unwatched model costs nothing. */
export interface ModelCallSink {
  wanted(): boolean;
  report(measure: ModelCallMeasure): void;
}

// The error types a measure names stay few (a label of a metric): troupe's codes, an abort, or `_OTHER`.
const errorTypeOf = (error: unknown): string =>
  error instanceof TroupeError ? error.code : error instanceof Error && error.name === 'AbortError' ? 'aborted' : '_OTHER';

// Durations use the monotonic `performance.now()`, not the injected clock: a measure is not an
// input of the run, and reading a recorded or simulated clock would change what a replay sees.
const secondsSince = (start: number): number => (performance.now() - start) / 1000;

/**
 * `model` with each call, chat and embed, reported to `sink` once it ends; a call made while the
 * sink wants nothing goes straight to `model`. Put under the call limiter, a call's time is the
 * provider's, not its wait for a slot.
 */
export function measuredModel(model: ModelClient, sink: ModelCallSink): ModelClient {
  return {
    name: model.name,
    scripted: model.scripted,
    chat: (request: ChatRequest, options?: ChatOptions): AsyncIterable<ChatDelta> =>
      sink.wanted() ? measuredChat(model, request, options, sink) : model.chat(request, options),
    embed: async (texts: readonly string[], options?: EmbedOptions): Promise<number[][]> => {
      if (!sink.wanted()) return model.embed(texts, options);
      const start = performance.now();
      let errorType: string | null = null;
      try {
        return await model.embed(texts, options);
      } catch (error) {
        errorType = errorTypeOf(error);
        throw error;
      } finally {
        sink.report({ operation: 'embeddings', model: model.name, seconds: secondsSince(start), usage: null, errorType });
      }
    },
  };
}

async function* measuredChat(model: ModelClient, request: ChatRequest, options: ChatOptions | undefined, sink: ModelCallSink): AsyncIterable<ChatDelta> {
  const start = performance.now();
  let usage: TokenUsage | null = null;
  let errorType: string | null = null;
  try {
    for await (const delta of model.chat(request, options)) {
      // A provider may send its usage in a finish of its own after the real one: the last one counts.
      if (delta.type === 'finish' && delta.usage !== undefined) usage = delta.usage;
      yield delta;
    }
  } catch (error) {
    errorType = errorTypeOf(error);
    throw error;
  } finally {
    sink.report({ operation: 'chat', model: model.name, seconds: secondsSince(start), usage, errorType });
  }
}

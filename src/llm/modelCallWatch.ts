import type { CollectedReply } from './collect.js';
import type { TokenUsage } from './messages.js';

/**
 * One attempt of a model call as it ended: what the GenAI client metrics (token usage, operation
 * duration) and the call's `chat` span are both made of.
 */
export interface ModelCallMeasure {
  /** `chat` (a completion) or `embeddings`, as the GenAI conventions name them. */
  readonly operation: 'chat' | 'embeddings';
  /** The client's name, e.g. `openai:gpt-4o-mini` or `offline-scripted`. */
  readonly model: string;
  /** From the call's start to its end (its stream read to the end, failed, or left early). */
  readonly seconds: number;
  /** From the call's start to the first fragment of its reply (text or a tool call); null when none came. */
  readonly firstChunkSeconds: number | null;
  /** The tokens the provider reported for the call; null when it reported none. */
  readonly usage: TokenUsage | null;
  /** Why the reply ended (`stop`, `tool_calls` …); null when it did not end (failed, left early) or for embeddings. */
  readonly finishReason: string | null;
  /** The model the provider says answered; null when it did not say. */
  readonly responseModel: string | null;
  /** The failure's code (`model_error`, `aborted` …) or `_OTHER`; null when the call succeeded. */
  readonly errorType: string | null;
}

/** Where measures go: asked first whether anyone wants them, so an unwatched model costs nothing. */
export interface ModelCallSink {
  wanted(): boolean;
  report(measure: ModelCallMeasure): void;
}

/**
 * Watches the attempts of one chat call, for the caller that made it (a turn, for its `chat`
 * spans): given in the call's options, it goes through the retry layer and the call limiter down to
 * the observing wrapper, which tells it each attempt that reaches the provider.
 */
export interface ModelCallWatcher {
  attempt(): AttemptWatch;
}

/** One attempt being watched. */
export interface AttemptWatch {
  /** Whether `ended` should be given the reply assembled (content recording). */
  readonly wantsReply: boolean;
  /** Runs one step of the provider's stream, so that work the client does in it (an HTTP request) happens in the attempt's context. */
  run<T>(step: () => Promise<T>): Promise<T>;
  ended(measure: ModelCallMeasure, outcome: { readonly error?: unknown; readonly reply?: CollectedReply }): void;
}

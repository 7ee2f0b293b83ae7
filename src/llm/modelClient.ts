import type { ChatDelta, ChatRequest } from './messages.js';
import type { ModelCallWatcher } from './modelCallWatch.js';

export interface ChatOptions {
  /** Aborted when the calling agent is terminated: the call must stop and not be retried. */
  readonly signal?: AbortSignal;
  /** Told of each attempt of the call that reaches the provider (a turn's `chat` spans); wrappers pass it on unchanged. */
  readonly watcher?: ModelCallWatcher;
}

export interface EmbedOptions {
  readonly signal?: AbortSignal;
  /** Provider embedding model; the client's default when absent. */
  readonly model?: string;
  /** Asks the provider for vectors this long (OpenAI's `dimensions`, which text-embedding-3 models honour); the model's own length when absent. */
  readonly dimensions?: number;
}

/**
 * A chat model that streams. Implemented by the offline scripted model and by the
 * OpenAI-compatible client; agents only ever see this interface.
 */
export interface ModelClient {
  /** Shown in logs and summaries, e.g. `offline-scripted` or `openai:gpt-4o-mini`. */
  readonly name: string;
  /** True for models that follow a script instead of thinking; the CLI says so. */
  readonly scripted: boolean;
  chat(request: ChatRequest, options?: ChatOptions): AsyncIterable<ChatDelta>;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

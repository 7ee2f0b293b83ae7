import type { ChatDelta, ChatRequest, ModelClient } from '../llm/index.js';
import type { ChatOptions, EmbedOptions } from '../llm/modelClient.js';

/** What a run spent on its model: requests made (retries included) and tokens the provider reported. */
export interface ModelSpend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * A model that counts what goes through it, for `troupe run`'s closing line. It sits under the
 * runtime's retry layer, so every attempt counts as a call, as a provider bills it; tokens are
 * what the provider reported in its usage chunks (none for a model that reports none).
 */
export class MeteredModel implements ModelClient {
  readonly spend: ModelSpend = { calls: 0, promptTokens: 0, completionTokens: 0 };
  readonly name: string;
  readonly scripted: boolean;
  readonly #inner: ModelClient;

  constructor(inner: ModelClient) {
    this.#inner = inner;
    this.name = inner.name;
    this.scripted = inner.scripted;
  }

  async *chat(request: ChatRequest, options?: ChatOptions): AsyncIterable<ChatDelta> {
    this.spend.calls += 1;
    for await (const delta of this.#inner.chat(request, options)) {
      if (delta.type === 'finish' && delta.usage !== undefined) {
        this.spend.promptTokens += delta.usage.promptTokens;
        this.spend.completionTokens += delta.usage.completionTokens;
      }
      yield delta;
    }
  }

  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    return this.#inner.embed(texts, options);
  }
}

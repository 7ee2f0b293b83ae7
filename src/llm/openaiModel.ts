import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ChatDelta, ChatRequest } from './messages.js';
import type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';
import { CompletionChunks } from './completionChunks.js';
import { toModelError } from './modelError.js';
import { chunkToDeltas, toWireMessages, toWireTools } from './openaiWire.js';

export interface OpenAIModelOptions {
  /** Sent as the bearer token; local servers (Ollama, vLLM, LM Studio) accept any value. */
  readonly apiKey?: string;
  /** e.g. `http://localhost:11434/v1` for Ollama; OpenAI's own API when absent. */
  readonly baseURL?: string;
  /** Chat model name, e.g. `gpt-4o-mini`, `llama3.1`. */
  readonly model: string;
  readonly embeddingModel?: string;
  /** Per request; the retry layer above decides what happens after a timeout. */
  readonly timeoutMs?: number;
  /** Ask for token usage in the stream (`stream_options.include_usage`); some servers refuse it. */
  readonly includeUsage?: boolean;
  readonly defaultHeaders?: Record<string, string>;
}

/**
 * Any OpenAI-compatible chat endpoint through the official `openai` package. The SDK's own
 * retries are off (`maxRetries: 0`) so that there is one retry schedule: troupe's. A failed call
 * throws `TroupeError('model_error')` with the SDK's error as its cause (see `toModelError`);
 * an aborted one throws the abort as it is.
 */
export class OpenAIModel implements ModelClient {
  readonly name: string;
  readonly scripted = false;
  readonly #client: OpenAI;
  readonly #options: OpenAIModelOptions;

  constructor(options: OpenAIModelOptions) {
    this.#options = options;
    this.name = `openai:${options.model}`;
    this.#client = new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: 0,
      ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
    });
  }

  chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    return deltasOf(
      (error) => toModelError(error, this.name, options.signal),
      () =>
        this.#client.chat.completions
          .create(
            {
              model: request.model ?? this.#options.model,
              messages: toWireMessages(request.messages),
              ...(request.tools.length === 0 ? {} : { tools: toWireTools(request.tools) }),
              stream: true,
              ...(this.#options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
            },
            options.signal === undefined ? {} : { signal: options.signal },
            // The SDK sends the request and turns an error status into its APIError; the body is read
            // by CompletionChunks, which costs a fraction of the SDK's Stream per chunk.
          )
          .asResponse(),
    );
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const response = await this.#client.embeddings
      .create(
        { model: options.model ?? this.#options.embeddingModel ?? 'text-embedding-3-small', input: [...texts] },
        options.signal === undefined ? {} : { signal: options.signal },
      )
      .catch((error: unknown) => Promise.reject(toModelError(error, this.name, options.signal)));
    return [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
  }
}

/**
 * The deltas of a streamed completion, opened on the first read. A network read's deltas are
 * handed out from a small queue without another promise each: this sits on every model call's path.
 */
function deltasOf(failure: (error: unknown) => unknown, open: () => Promise<Response>): AsyncIterable<ChatDelta> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
      let chunks: CompletionChunks | undefined;
      let queue: ChatDelta[] = [];
      let head = 0;
      const pull = async (): Promise<IteratorResult<ChatDelta>> => {
        chunks ??= new CompletionChunks(await open());
        for (;;) {
          const batch = await chunks.next();
          if (batch === null) return { done: true, value: undefined };
          queue = batch.length === 1 ? chunkToDeltas(batch[0] as ChatCompletionChunk) : batch.flatMap(chunkToDeltas);
          head = 0;
          const first = queue[head++];
          if (first !== undefined) return { done: false, value: first };
        }
      };
      return {
        next: () => {
          const queued = queue[head];
          if (queued === undefined) return pull().catch((error: unknown) => Promise.reject(failure(error)));
          head += 1;
          return Promise.resolve({ done: false, value: queued });
        },
        // The consumer stopped early: close the HTTP stream.
        return: async (): Promise<IteratorResult<ChatDelta>> => {
          await chunks?.cancel();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

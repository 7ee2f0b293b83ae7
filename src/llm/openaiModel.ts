import OpenAI from 'openai';
import { type Clock, systemClock } from '../clock.js';
import { parseOrThrow } from '../task/index.js';
import { AttemptTimer } from './attemptTimer.js';
import { boundedFetch } from './boundedFetch.js';
import { completionDeltas } from './completionDeltas.js';
import { vectorsOfReply } from './embeddingReply.js';
import type { ChatDelta, ChatRequest } from './messages.js';
import type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';
import { toModelError } from './modelError.js';
import { type ModelLimits, ModelLimitsSchema } from './modelLimits.js';
import { toWireMessages, toWireTools } from './openaiWire.js';

export interface OpenAIModelOptions {
  /** Sent as the bearer token; local servers (Ollama, vLLM, LM Studio) accept any value. */
  readonly apiKey?: string;
  /** e.g. `http://localhost:11434/v1` for Ollama; OpenAI's own API when absent. */
  readonly baseURL?: string;
  /** Chat model name, e.g. `gpt-4o-mini`, `llama3.1`. */
  readonly model: string;
  readonly embeddingModel?: string;
  /**
   * One attempt, from the request to the stream's last chunk (5 min by default); the retry layer
   * above retries a timeout as a network error.
   */
  readonly timeoutMs?: number;
  /** Silence allowed between two reads of a streamed reply, from its headers on (60 s by default). */
  readonly idleTimeoutMs?: number;
  /** Bytes a reply's body may have (32 MiB by default); a larger one fails the call, unretried. */
  readonly maxReplyBytes?: number;
  /** What the timeouts run on; the system clock by default, a SimulatedClock in tests. */
  readonly clock?: Clock;
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
  readonly #limits: ModelLimits;
  readonly #clock: Clock;

  /** Throws a ValidationError naming an option out of range (`timeoutMs`, `idleTimeoutMs`, `maxReplyBytes`). */
  constructor(options: OpenAIModelOptions) {
    this.#options = options;
    this.#limits = parseOrThrow(ModelLimitsSchema, {
      timeoutMs: options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      maxReplyBytes: options.maxReplyBytes,
    });
    this.#clock = options.clock ?? systemClock;
    this.name = `openai:${options.model}`;
    this.#client = new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      // The SDK's timer bounds the wait for headers; from the headers on, the attempt's own
      // (AttemptTimer, on the injected clock) bounds the rest of the attempt and its silences.
      timeout: this.#limits.timeoutMs,
      maxRetries: 0,
      fetch: boundedFetch(this.#limits.maxReplyBytes),
      ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
    });
  }

  /** Where requests go, e.g. `http://localhost:11434/v1`; named in every failure. */
  get endpoint(): string {
    return this.#client.baseURL;
  }

  chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    return completionDeltas({
      limits: this.#limits,
      clock: this.#clock,
      signal: options.signal,
      failure: (error) => toModelError(error, this.name, options.signal, this.endpoint),
      open: () =>
        this.#client.chat.completions
          .create(
            {
              model: request.model ?? this.#options.model,
              messages: toWireMessages(request.messages),
              ...(request.tools.length === 0 ? {} : { tools: toWireTools(request.tools) }),
              // OpenAI's current name (max_tokens is deprecated, refused by o-series models); a server that does not know it
              // ignores it, and a caller that must bound a reply bounds what it reads as well.
              ...(request.maxTokens === undefined ? {} : { max_completion_tokens: request.maxTokens }),
              stream: true,
              ...(this.#options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
            },
            options.signal === undefined ? {} : { signal: options.signal },
            // The SDK sends the request and turns an error status into its APIError; the body is read
            // by CompletionChunks, which costs a fraction of the SDK's Stream per chunk.
          )
          .asResponse(),
    });
  }

  /** One attempt bounded by `timeoutMs`, its body (which the SDK reads) included. */
  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const timer = new AttemptTimer(this.#clock, this.#limits);
    const timedOut = new AbortController();
    timer.onExpire = () => timedOut.abort();
    try {
      const response = await this.#client.embeddings.create(
        {
          model: options.model ?? this.#options.embeddingModel ?? 'text-embedding-3-small',
          input: [...texts],
          ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
        },
        { signal: options.signal === undefined ? timedOut.signal : AbortSignal.any([options.signal, timedOut.signal]) },
      );
      return vectorsOfReply(response, texts.length);
    } catch (error) {
      throw toModelError(timer.expired ?? error, this.name, options.signal, this.endpoint);
    } finally {
      timer.dispose();
    }
  }
}

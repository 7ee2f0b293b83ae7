import { z } from 'zod';
import type { Clock } from '../clock.js';
import { TroupeError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { parseOrThrow } from '../task/index.js';
import type { ModelClient } from './modelClient.js';
import { OpenAIModel } from './openaiModel.js';
import { type RetryPolicy, RetryingModel, defaultRetryPolicy } from './retry.js';

/** The lengths of OpenAI's own embedding models, so naming one is enough. */
const knownDimensions: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const EmbeddingsOptionsSchema = z.object({
  model: z.string().trim().min(1).default('text-embedding-3-small'),
  dimension: z.number().int().positive().max(65_536).optional(),
  askDimension: z.boolean().default(false),
  // OpenAI takes at most 2,048 inputs a request.
  batchSize: z.number().int().positive().max(2048).default(100),
});

export interface OpenAIEmbeddingsOptions {
  /** Embedding model name (`text-embedding-3-small` by default; e.g. `nomic-embed-text` on Ollama). */
  readonly model?: string;
  /**
   * Length of the model's vectors. Known for OpenAI's own models; required for any other, e.g.
   * 768 for `nomic-embed-text`. Every reply is checked against it.
   */
  readonly dimension?: number;
  /** Sends `dimensions: dimension` with each request, for models that can shorten their vectors (text-embedding-3-*). */
  readonly askDimension?: boolean;
  /** Texts sent in one request (100 by default, at most 2,048); more are sent in several requests, one after another. */
  readonly batchSize?: number;
  readonly apiKey?: string;
  /** e.g. `http://localhost:11434/v1`; OpenAI's own API when absent. */
  readonly baseURL?: string;
  readonly defaultHeaders?: Record<string, string>;
  /** One attempt's time limit, its whole reply included (5 min by default, as for chat). */
  readonly timeoutMs?: number;
  /** Bytes one reply may have (32 MiB by default). */
  readonly maxReplyBytes?: number;
  /** Retries of a failed request (network errors, timeouts, 408, 429, 5xx), as for chat; `false` for none. */
  readonly retry?: RetryPolicy | false;
  /** What timeouts and retry waits run on; the system clock by default. */
  readonly clock?: Clock;
  /** Hears of every retry. */
  readonly logger?: Logger;
}

/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` through the official `openai` package,
 * for L4 memory (it has the shape of memory's `Embedder`). Each request is one attempt of
 * `OpenAIModel.embed` (timed by `timeoutMs`, bounded by `maxReplyBytes`) inside troupe's retry
 * schedule; a call given up on fails with `model_error` naming the model and endpoint, an aborted
 * one with the abort. Vectors come back L2-normalised; a reply of another length than `dimension`
 * fails with `model_error` saying both lengths (vectors of two lengths must never mix).
 * @example
 * const embedder = new OpenAIEmbeddings({ baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text', dimension: 768 });
 * const [vector] = await embedder.embed(['the user prefers dark mode']);
 */
export class OpenAIEmbeddings {
  /** `openai:<model>`, stored with every vector made by it. */
  readonly id: string;
  readonly dimension: number;
  readonly #model: string;
  readonly #askDimension: boolean;
  readonly #batchSize: number;
  readonly #client: ModelClient;
  readonly #endpoint: string;

  /** Throws a ValidationError naming the option that is wrong (`dimension` when it is needed and absent). */
  constructor(options: OpenAIEmbeddingsOptions = {}) {
    const settings = parseOrThrow(EmbeddingsOptionsSchema, pick(options), 'OpenAIEmbeddings');
    const dimension = settings.dimension ?? knownDimensions[settings.model];
    if (dimension === undefined) {
      throw new ValidationError(
        'OpenAIEmbeddings.dimension',
        `the length of ${settings.model}'s vectors is not known; give it (e.g. 768 for nomic-embed-text)`,
      );
    }
    this.dimension = dimension;
    this.#model = settings.model;
    this.#askDimension = settings.askDimension;
    this.#batchSize = settings.batchSize;
    this.id = `openai:${settings.model}`;
    // Both read an absent option (undefined) as its default.
    const { apiKey, baseURL, defaultHeaders, timeoutMs, maxReplyBytes, clock, logger } = options;
    const inner = new OpenAIModel({ model: settings.model, embeddingModel: settings.model, apiKey, baseURL, defaultHeaders, timeoutMs, maxReplyBytes, clock });
    this.#endpoint = inner.endpoint;
    const policy = options.retry === false ? { ...defaultRetryPolicy, maxRetries: 0 } : (options.retry ?? defaultRetryPolicy);
    this.#client = new RetryingModel(inner, policy, { clock, logger });
  }

  /** One unit vector per text, in order, in requests of at most `batchSize` texts. */
  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      const replies = await this.#client.embed(batch, {
        model: this.#model,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(this.#askDimension ? { dimensions: this.dimension } : {}),
      });
      for (const reply of replies) vectors.push(this.#unitVector(reply, vectors.length));
    }
    return vectors;
  }

  /** The reply's vector scaled to length 1, or a model_error when it has the wrong length or no direction. */
  #unitVector(reply: readonly number[], index: number): Float32Array {
    if (reply.length !== this.dimension) {
      throw this.#failure(
        `returned a vector of ${reply.length} numbers where ${this.dimension} were expected (dimension): ` +
          `set dimension to ${reply.length} if that is the model's length, or check that the server runs the model the vectors were made with`,
      );
    }
    let squares = 0;
    for (const value of reply) squares += value * value;
    if (!(squares > 0) || !Number.isFinite(squares))
      throw this.#failure(`returned a vector for text ${index} that cannot be normalised (all zeros, or not finite)`);
    const scale = 1 / Math.sqrt(squares);
    return Float32Array.from(reply, (value) => value * scale);
  }

  #failure(what: string): TroupeError {
    return new TroupeError('model_error', `embedding model ${this.id} at ${this.#endpoint} ${what}`, {
      context: { model: this.id, endpoint: this.#endpoint },
    });
  }
}

/** The options the schema checks, the rest being checked where they are used (OpenAIModel, RetryingModel). */
function pick(options: OpenAIEmbeddingsOptions): z.input<typeof EmbeddingsOptionsSchema> {
  const { model, dimension, askDimension, batchSize } = options;
  return { model, dimension, askDimension, batchSize };
}

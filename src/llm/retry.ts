import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { type Clock, sleep, systemClock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ChatDelta, ChatRequest } from './messages.js';
import type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';
import { describeModelFailure, providerErrorOf, toModelError } from './modelError.js';
import { networkCodeOf } from './networkCode.js';
import { retryingStream } from './retryingStream.js';

export interface RetryPolicy {
  /** Retries after the first attempt (seed 004: at most 3). */
  readonly maxRetries: number;
  /** Delay before retry n (from 0) is `baseDelayMs · 2ⁿ`: 1 s, 2 s, 4 s by default. */
  readonly baseDelayMs: number;
  /** No wait is longer than this, whatever the server's Retry-After says. */
  readonly maxDelayMs: number;
  /**
   * 0..1: each wait is spread at random by up to this fraction, so agents a provider refused at
   * once (one 429 for all) do not retry in lockstep: the backoff shortened, a server's
   * Retry-After lengthened (never shortened). 0 for waits a test can predict.
   */
  readonly jitter: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.5 };

export interface RetryVerdict {
  readonly retryable: boolean;
  /** What the server asked for (Retry-After / retry-after-ms), when it did. */
  readonly retryAfterMs?: number;
  readonly status?: number;
}

/**
 * Network errors, timeouts, 408, 429 and 5xx are worth another try; other 4xx and aborts are
 * not. A `model_error` is judged by the provider's error it carries.
 */
export function classifyModelError(thrown: unknown): RetryVerdict {
  const error = providerErrorOf(thrown);
  if (error instanceof APIUserAbortError) return { retryable: false };
  if (error instanceof APIConnectionError) return { retryable: true };
  if (error instanceof APIError) {
    // The SDK types these generically; at run time they are a number (or undefined) and Headers.
    const { status, headers } = error as { status: number | undefined; headers: Headers | undefined };
    if (status === undefined) return { retryable: true };
    const retryable = status === 408 || status === 429 || status >= 500;
    const retryAfterMs = retryAfterFrom(headers);
    return { retryable, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  if (isNetworkError(error)) return { retryable: true };
  return { retryable: false };
}

/** Reads `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function retryAfterFrom(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (value === undefined || value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

function isNetworkError(error: unknown): boolean {
  const code = networkCodeOf(error);
  return code !== undefined && networkCodes.has(code);
}

/** A retry about to wait, as `onRetry` hears of it (and the log says it). */
export interface RetryNotice {
  readonly model: string;
  /** `call` (failed before its stream started), `stream` (failed part-way) or `embed`. */
  readonly what: string;
  /** Which retry this is, from 1, of `of`. */
  readonly attempt: number;
  readonly of: number;
  readonly delayMs: number;
  readonly status: number | undefined;
  /** What went wrong, in one line (the whole model_error). */
  readonly error: string;
  /** What the provider said, without naming the model: `HTTP 503 server_error: overloaded`, `connection failed: ECONNREFUSED (…)`. */
  readonly reason: string;
}

export interface RetryDeps {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** 0 ≤ x < 1; injected so jitter is testable. */
  readonly random?: () => number;
  /** Told of every retry before its wait, e.g. to show it on a status line. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Told of every call given up on (retries spent, or an error no retry fixes), with the model_error it ends in; not of aborts. */
  readonly onGiveUp?: (error: unknown) => void;
}

/**
 * Wraps a model with troupe's one retry schedule. A stream that fails part-way is run again
 * from the start, announced by a `restart` delta so the consumer drops the partial reply. An
 * aborted call (its agent was terminated) is never retried and ends as the abort it is; any
 * other call it gives up on ends in `TroupeError('model_error')`, the last error as its cause.
 */
export class RetryingModel implements ModelClient {
  readonly name: string;
  readonly scripted: boolean;
  readonly #clock: Clock;
  readonly #random: () => number;

  constructor(
    readonly inner: ModelClient,
    readonly policy: RetryPolicy = defaultRetryPolicy,
    private readonly deps: RetryDeps = {},
  ) {
    this.name = inner.name;
    this.scripted = inner.scripted;
    this.#clock = deps.clock ?? systemClock;
    this.#random = deps.random ?? Math.random;
  }

  /**
   * The wait before retry `retry` (0-based), given what the server asked for: one random draw
   * spreads both the backoff (shorter) and the server's Retry-After (longer, never shorter).
   */
  delayFor(retry: number, retryAfterMs: number | undefined): number {
    const { baseDelayMs, maxDelayMs, jitter } = this.policy;
    const spread = jitter * this.#random();
    const backoff = baseDelayMs * 2 ** retry * (1 - spread);
    const asked = (retryAfterMs ?? 0) * (1 + spread);
    return Math.min(maxDelayMs, Math.max(backoff, asked));
  }

  chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    return retryingStream(
      () => this.inner.chat(request, options),
      (error, attempt, started) => this.#beforeRetry(error, attempt, options.signal, started ? 'stream' : 'call'),
    );
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.inner.embed(texts, options);
      } catch (error) {
        await this.#beforeRetry(error, attempt, options.signal, 'embed');
      }
    }
  }

  /** Throws unless `error` deserves another attempt (as a model_error, see `toModelError`); otherwise logs and waits. */
  async #beforeRetry(error: unknown, attempt: number, signal: AbortSignal | undefined, what: string): Promise<void> {
    if (signal?.aborted === true) throw error;
    const verdict = classifyModelError(error);
    if (!verdict.retryable || attempt >= this.policy.maxRetries) {
      const failure = toModelError(error, this.name, signal);
      this.deps.onGiveUp?.(failure);
      throw failure;
    }
    const delayMs = this.delayFor(attempt, verdict.retryAfterMs);
    const notice: RetryNotice = {
      model: this.name,
      what,
      attempt: attempt + 1,
      of: this.policy.maxRetries,
      delayMs,
      status: verdict.status,
      error: describeError(error),
      reason: describeModelFailure(providerErrorOf(error)),
    };
    const { reason: _shownInError, ...logged } = notice;
    this.deps.logger?.warn(logged, 'model call failed; retrying');
    this.deps.onRetry?.(notice);
    await sleep(this.#clock, delayMs, signal);
  }
}

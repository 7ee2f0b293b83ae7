import { type EventSourceMessage, type EventSourceParser, createParser } from 'eventsource-parser';
import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { replyTooLarge } from './modelLimits.js';

/**
 * An event's data may be long (a tool call's arguments), never this long: past it the stream is
 * refused rather than buffered without end.
 */
const defaultMaxEventChars = 32 * 1024 * 1024;

export interface CompletionChunksOptions {
  /** Longest event, in characters (32 MiB by default). */
  readonly maxEventChars?: number;
  /** Bytes of the whole body; past them the stream fails naming the limit (none by default). */
  readonly maxReplyBytes?: number;
  /** Called after each network read, e.g. to note that the stream is not silent. */
  readonly onRead?: () => void;
}

/**
 * The chunks of a streamed chat completion, read from the response's SSE body. It means what
 * the SDK's own `Stream` means: `data: [DONE]` ends it, a payload with an `error` throws the
 * SDK's `APIError`, an abort ends it quietly, the body is read to its end so the connection can
 * be reused. The SDK's reader is three async generators deep, several promises per chunk; this
 * costs one promise per network read, whatever number of chunks the read completes.
 */
export class CompletionChunks {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  readonly #headers: Headers;
  #batch: ChatCompletionChunk[] = [];
  #sawDone = false;
  #ended = false;
  #bytes = 0;
  readonly #maxReplyBytes: number;
  readonly #onRead: (() => void) | undefined;

  constructor(response: Response, options: CompletionChunksOptions = {}) {
    if (response.body === null) throw new Error('the model server sent a streamed completion with no body');
    const { maxEventChars = defaultMaxEventChars, maxReplyBytes = Infinity, onRead } = options;
    this.#maxReplyBytes = maxReplyBytes;
    this.#onRead = onRead;
    this.#reader = response.body.getReader();
    this.#headers = response.headers;
    this.#parser = createParser({
      onEvent: (message) => this.#onEvent(message),
      onError: (error) => {
        // Unknown fields and bad `retry` values are ignored, as the SDK and browsers do.
        if (error.type === 'max-buffer-size-exceeded') throw new Error(`the model server sent an event longer than ${maxEventChars} characters`);
      },
      maxBufferSize: maxEventChars,
    });
  }

  /** The chunks of the next network read that completes any; `null` once the stream is over. */
  async next(): Promise<ChatCompletionChunk[] | null> {
    while (this.#batch.length === 0 && !this.#ended) {
      try {
        const read = await this.#reader.read();
        // At the end, an event with no blank line after it is incomplete and dropped (the SSE rule, and the SDK's).
        this.#onRead?.();
        if (read.done) this.#ended = true;
        else this.#feed(read.value);
      } catch (error) {
        this.#ended = true;
        // The caller's signal aborted the request: the stream just ends, as the SDK's does.
        if (isAbortError(error)) break;
        // A bad event or a broken connection: the stream is over, what came before it in the
        // same read included (the call is retried or fails whole), and the request is closed.
        this.#batch = [];
        void this.#reader.cancel().catch(() => undefined);
        throw error;
      }
    }
    const batch = this.#batch;
    this.#batch = [];
    return batch.length === 0 ? null : batch;
  }

  #feed(bytes: Uint8Array): void {
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxReplyBytes) throw replyTooLarge(this.#maxReplyBytes);
    this.#parser.feed(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The consumer stopped early: close the body (and with it the request). */
  async cancel(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#reader.cancel().catch(() => undefined);
  }

  #onEvent(message: EventSourceMessage): void {
    // After [DONE] the rest of the body is read but means nothing.
    if (this.#sawDone) return;
    if (message.data.startsWith('[DONE]')) {
      this.#sawDone = true;
      return;
    }
    // Assistants-API events share the SSE format; a chat completion never sends them.
    if (message.event?.startsWith('thread.') === true) return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      throw new Error(`the model server sent a stream event that is not JSON: ${message.data.slice(0, 200)}`);
    }
    if (typeof data !== 'object' || data === null)
      throw new Error(`the model server sent a stream event that is not a chunk object: ${message.data.slice(0, 200)}`);
    if ('error' in data && data.error !== undefined && data.error !== null) {
      throw new APIError(undefined, data.error, undefined, this.#headers);
    }
    // Some servers name the event instead of wrapping the payload in `error`.
    if (message.event === 'error') throw new APIError(undefined, data, undefined, this.#headers);
    const { choices } = data as { choices?: unknown };
    // A usage-only chunk from some servers leaves `choices` out; anything else there is not a chunk.
    if (choices === undefined) this.#batch.push({ ...(data as ChatCompletionChunk), choices: [] });
    else if (Array.isArray(choices)) this.#batch.push(data as ChatCompletionChunk);
    else throw new Error(`the model server sent a chunk whose choices is not a list: ${message.data.slice(0, 200)}`);
  }
}

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

import type { ServerResponse } from 'node:http';
import { HttpError } from './httpErrors.js';
import type { ServerLimits } from './serverLimits.js';

/** One open event stream, as the budget sees it. */
export interface BudgetedStream {
  readonly client: string;
  readonly raw: ServerResponse;
  /** Bytes it had waiting when last counted. */
  buffered: number;
  /** Ends the stream at once, dropping what it had waiting (the client was too slow). */
  cutOff(reason: string): void;
}

type StreamLimits = Pick<ServerLimits, 'maxEventStreams' | 'maxEventStreamsPerClient' | 'maxStreamBufferBytes' | 'maxTotalStreamBufferBytes'>;

/**
 * What all event streams together may hold: how many are open (overall and per client) and
 * how many bytes they have written that their clients have not read yet (per stream and in
 * all). A client that stops reading makes its stream's buffer grow; past either byte limit
 * the stream is cut off and its buffer freed, so no number of idle clients can exhaust memory.
 *
 * The total is kept incrementally: a stream's count is refreshed each time it is written to,
 * so between writes the total may overstate what is waiting (a client may have read since).
 * Only when the total goes over the limit is every stream recounted, before any is cut.
 */
export class StreamBudget {
  readonly #limits: StreamLimits;
  readonly #streams = new Set<BudgetedStream>();
  readonly #perClient = new Map<string, number>();
  #total = 0;

  constructor(limits: StreamLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Throws a 429 `too_many_streams` when `client` may not open another stream. */
  admit(client: string): void {
    if (this.#streams.size >= this.#limits.maxEventStreams) {
      throw new HttpError('too_many_streams', `the server already has ${this.#limits.maxEventStreams} event streams open (maxEventStreams)`);
    }
    if ((this.#perClient.get(client) ?? 0) >= this.#limits.maxEventStreamsPerClient) {
      throw new HttpError(
        'too_many_streams',
        `this client already has ${this.#limits.maxEventStreamsPerClient} event streams open (maxEventStreamsPerClient); close one first`,
      );
    }
  }

  add(stream: BudgetedStream): void {
    this.#streams.add(stream);
    this.#perClient.set(stream.client, (this.#perClient.get(stream.client) ?? 0) + 1);
  }

  remove(stream: BudgetedStream): void {
    if (!this.#streams.delete(stream)) return;
    this.#total -= stream.buffered;
    const left = (this.#perClient.get(stream.client) ?? 1) - 1;
    if (left === 0) this.#perClient.delete(stream.client);
    else this.#perClient.set(stream.client, left);
  }

  /** Recounts `stream` after a write to it, and cuts off whatever the limits require. */
  wrote(stream: BudgetedStream): void {
    this.#recount(stream);
    if (stream.buffered > this.#limits.maxStreamBufferBytes) {
      stream.cutOff(`it had more than ${this.#limits.maxStreamBufferBytes} bytes unread (maxStreamBufferBytes)`);
      return;
    }
    if (this.#total > this.#limits.maxTotalStreamBufferBytes) this.#shed();
  }

  #recount(stream: BudgetedStream): void {
    const now = stream.raw.writableLength;
    this.#total += now - stream.buffered;
    stream.buffered = now;
  }

  /** Over the total: recount every stream, then cut off those holding most until under it. */
  #shed(): void {
    for (const stream of this.#streams) this.#recount(stream);
    const largestFirst = [...this.#streams].sort((a, b) => b.buffered - a.buffered);
    for (const stream of largestFirst) {
      if (this.#total <= this.#limits.maxTotalStreamBufferBytes || stream.buffered === 0) return;
      stream.cutOff(`the event streams together had more than ${this.#limits.maxTotalStreamBufferBytes} bytes unread (maxTotalStreamBufferBytes)`);
    }
  }
}

import type { Task } from '../../src/task/index.js';

/** One Server-Sent Event as the client saw it. */
export interface ServerEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: string;
}

/**
 * A minimal SSE reader over fetch: collects every event, and lets a test wait until the
 * events seen so far satisfy a condition (woken by each new event, never by a timer).
 */
export class EventStreamClient {
  readonly events: ServerEvent[] = [];
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #abort = new AbortController();

  private constructor() {}

  /** Opens `path` and resolves once the server's `: connected` comment has arrived; `lastEventId` resumes after that event. */
  static async open(url: string, path: string, token?: string, lastEventId?: string): Promise<EventStreamClient> {
    const client = new EventStreamClient();
    const response = await fetch(`${url}${path}`, {
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      },
      signal: client.#abort.signal,
    });
    if (response.status !== 200 || response.body === null) throw new Error(`event stream answered ${response.status}: ${await response.text()}`);
    let resolveConnected = (): void => undefined;
    const connected = new Promise<void>((resolve) => (resolveConnected = resolve));
    void client.#read(response.body, () => resolveConnected()).catch(() => undefined);
    await connected;
    return client;
  }

  get tasks(): Task[] {
    return this.events.filter((event) => event.event === 'task').map((event) => JSON.parse(event.data) as Task);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Resolves once `condition` holds over the events so far; rejects if the stream ends first. */
  async until(condition: (client: EventStreamClient) => boolean): Promise<void> {
    while (!condition(this)) {
      if (this.#ended) throw new Error(`event stream ended before the condition held (${this.events.length} events)`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  close(): void {
    this.#abort.abort();
  }

  async #read(body: ReadableStream<Uint8Array>, connected: () => void): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.split('\n').includes(': connected')) connected();
          this.#parse(block);
          end = buffer.indexOf('\n\n');
        }
        this.#wake?.();
      }
    } finally {
      this.#ended = true;
      connected();
      this.#wake?.();
    }
  }

  #parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) this.events.push({ event, id, data: data.join('\n') });
  }
}

import { type Socket, connect } from 'node:net';

/**
 * An HTTP client over a bare TCP socket, for tests where the client must misbehave: send
 * headers or a body slowly, send too much, or never read. It records what arrived and how
 * the connection ended, and lets a test wait for either (woken by socket events, never by a timer).
 */
export class RawHttpClient {
  static readonly #open = new Set<RawHttpClient>();
  received = '';
  /** How the server ended the connection: `end` (it closed cleanly), `error: <code>` or `close`. */
  ending: string | undefined;
  readonly socket: Socket;
  readonly closed: Promise<void>;
  #wake: () => void = () => undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.toString('latin1');
      this.#wake();
    });
    socket.on('end', () => (this.ending ??= 'end'));
    socket.on('error', (error: NodeJS.ErrnoException) => (this.ending ??= `error: ${error.code ?? error.message}`));
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.ending ??= 'close';
        this.#wake();
        resolve();
      }),
    );
  }

  /** Connects to the host and port of `url` (from `localAddress`, to look like another client). */
  static async connect(url: string, options: { localAddress?: string } = {}): Promise<RawHttpClient> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port), ...options });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const client = new RawHttpClient(socket);
    RawHttpClient.#open.add(client);
    return client;
  }

  /** Destroys every client still open: for a test's `afterEach`. */
  static destroyAll(): void {
    for (const client of RawHttpClient.#open) client.destroy();
    RawHttpClient.#open.clear();
  }

  /** Writes `text` (or bytes) as is; resolves once the socket has taken it. */
  write(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** Resolves once `condition` holds over what arrived; rejects if the connection closes first. */
  async until(condition: (received: string) => boolean, what: string): Promise<void> {
    while (!condition(this.received)) {
      if (this.socket.destroyed) throw new Error(`connection closed (${this.ending ?? '?'}) before ${what}; received: ${this.received.slice(0, 500)}`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The status code of the first response that arrived, once its status line has. */
  async status(): Promise<number> {
    await this.until((received) => /^HTTP\/1\.1 \d{3}/.test(received), 'a status line');
    return Number(this.received.slice(9, 12));
  }

  /** The first response's body, parsed as JSON, once `content-length` bytes of it arrived. */
  async json<T = { error: { code: string; message: string; field: string | null } }>(): Promise<T> {
    const complete = (received: string): boolean => {
      const split = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
      return split !== -1 && length !== undefined && received.length >= split + 4 + Number(length);
    };
    await this.until(complete, 'a whole response');
    const split = this.received.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(this.received)?.[1]);
    return JSON.parse(this.received.slice(split + 4, split + 4 + length)) as T;
  }

  /** The first response's headers, lower-cased names. */
  headers(): Record<string, string> {
    const head = this.received.slice(0, this.received.indexOf('\r\n\r\n'));
    const headers: Record<string, string> = {};
    for (const line of head.split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    return headers;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

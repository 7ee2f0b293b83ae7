import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP relay on a loopback port to a server's port, which a test can cut (every connection
 * through it dropped, new ones refused) and restore: one client loses its server while every
 * other client keeps it, as when one node's network fails.
 */
export class TcpProxy {
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  private constructor(private readonly targetPort: number) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    await proxy.restore();
    return proxy;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.#port}`;
  }

  /** Drops every connection through the relay and stops accepting new ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    const closed = server === undefined ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await closed;
  }

  /** Accepts connections (again), on the same port once it has one. */
  restore(): Promise<void> {
    const server = createServer((client) => this.#relay(client));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => {
        const address = server.address();
        if (typeof address === 'object' && address !== null) this.#port = address.port;
        resolve();
      });
    });
  }

  #relay(client: Socket): void {
    const upstream = connect(this.targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}

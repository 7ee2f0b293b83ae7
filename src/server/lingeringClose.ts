import type { Server } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyRequest, onSendHookHandler } from 'fastify';

/**
 * An `onSend` hook that closes the connection after a refusal made before the body was read
 * (a 401 from the auth hook, a 413 on `content-length`, a 415), and after every 401: a client
 * that is not let in gets no second request on the same connection.
 *
 * Closing at once would be wrong: a client still sending its body would meet a reset, and
 * a reset makes its side drop what it has not read yet, our reply included (`fetch` reports
 * a network error instead of the 413). So the close lingers, as nginx's `lingering_close`
 * does: the reply goes out with `connection: close` and the write side is shut (FIN), the
 * rest of the body is read and thrown away, and the socket is destroyed when the body ends,
 * or once more than `lingerBytes` of it arrived, or when the request timeout (`requestTimeoutMs`) fires.
 */
export function closeAfterRefusal(lingerBytes: number): onSendHookHandler {
  // Takes Fastify's `done` rather than being async: every reply passes here, and then costs no promise.
  return (request, reply, payload, done) => {
    const refused = reply.statusCode >= 400;
    const unread = refused && !request.raw.complete;
    if (unread || reply.statusCode === 401) void reply.header('connection', 'close');
    if (unread) linger(request, lingerBytes);
    done(null, payload);
  };
}

/** Reads and drops what is left of `request`'s body, then lets Node close its socket. */
function linger(request: FastifyRequest, lingerBytes: number): void {
  const incoming = request.raw;
  const socket = incoming.socket;
  let discarded = 0;
  // Reading keeps Node from dumping the body, which would drop it unseen and so uncounted.
  incoming.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > lingerBytes) socket.destroy();
  });
  // Node closes a `connection: close` reply's socket with `destroySoon` once the reply is
  // written: here that shuts the write side only, and the destroy waits for the body's end.
  socket.destroySoon = () => {
    socket.end();
    const close = (): void => Socket.prototype.destroySoon.call(socket);
    if (incoming.complete) close();
    else incoming.once('end', close);
  };
}

/**
 * The server's open sockets, to close those no reply is using when the server closes. Node's own
 * idle check (`forceCloseConnections: 'idle'`) misses a connection whose client began another
 * request after a streamed reply and then went quiet: without this, `close` would wait for it
 * until the client's pool let it go.
 */
export class OpenSockets {
  readonly #sockets = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Destroys every socket with no reply in progress (Node's `_httpMessage`, which its own idle check reads too). */
  closeUnused(): void {
    for (const socket of this.#sockets) if ((socket as Socket & { _httpMessage?: unknown })._httpMessage == null) socket.destroy();
  }
}

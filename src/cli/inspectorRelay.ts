import { type Server, createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { TroupeError } from '../errors.js';

/** Bounds of the relay: it runs on a developer's machine, but nothing it keeps may grow without limit. */
export interface InspectorRelayLimits {
  /** Browser pages and runs connected at once; more are closed with 1013 (try again later). */
  readonly maxClients: number;
  /** Recent messages kept for a page that connects late (the actors created before it). */
  readonly replayMessages: number;
  /** Bytes a client may have unsent; a client that reads slower is disconnected. */
  readonly maxBufferedBytes: number;
  /** Largest message accepted. */
  readonly maxMessageBytes: number;
}

export const defaultInspectorRelayLimits: InspectorRelayLimits = {
  maxClients: 16,
  replayMessages: 1_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxMessageBytes: 1024 * 1024,
};

export interface InspectorRelay {
  /** The page to open: it embeds the Stately inspector and feeds it what the relay receives. */
  readonly pageUrl: string;
  /** Where a run sends its inspection events. */
  readonly socketUrl: string;
  /** The address the relay listens on (always loopback). */
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const inspectorApp = 'https://stately.ai/inspect';

/** The page: the inspector in a frame, and a socket whose messages are posted to it once it says it is ready. */
function bridgePage(socketUrl: string): string {
  return `<!doctype html>
<html><head><title>troupe · Stately Inspector</title>
<style>html,body,iframe{margin:0;width:100%;height:100%;border:0}</style></head>
<body><iframe id="inspector" src="${inspectorApp}"></iframe>
<script>
const frame = document.getElementById('inspector');
const waiting = [];
let ready = false;
addEventListener('message', (event) => {
  if (event.data && event.data.type === '@statelyai.connected') {
    ready = true;
    for (const data of waiting.splice(0)) frame.contentWindow.postMessage(data, '*');
  }
});
new WebSocket(${JSON.stringify(socketUrl)}).onmessage = (event) => {
  const data = JSON.parse(event.data);
  if (ready) frame.contentWindow.postMessage(data, '*');
  else waiting.push(data);
};
</script></body></html>`;
}

/**
 * A relay between a run and the browser page of the Stately inspector, bound to loopback only (the
 * inspection stream shows every Task's text): every message one client sends goes to all others,
 * and the last `replayMessages` to each client as it connects.
 */
export async function startInspectorRelay(port: number, limits: InspectorRelayLimits = defaultInspectorRelayLimits): Promise<InspectorRelay> {
  const host = '127.0.0.1';
  // Made once the port is bound (port 0 picks one).
  let page = '';
  const http: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  const sockets = new WebSocketServer({ server: http, maxPayload: limits.maxMessageBytes });
  const replay: string[] = [];
  const send = (client: WebSocket, message: string): void => {
    if (client.readyState !== WebSocket.OPEN) return;
    if (client.bufferedAmount > limits.maxBufferedBytes) client.terminate();
    else client.send(message);
  };
  sockets.on('connection', (client) => {
    if (sockets.clients.size > limits.maxClients) {
      client.close(1013, `at most ${limits.maxClients} inspector clients`);
      return;
    }
    client.on('error', () => client.terminate());
    for (const message of replay) send(client, message);
    // Text frames arrive as one Buffer (ws's default binaryType).
    client.on('message', (data: Buffer) => {
      const message = data.toString();
      replay.push(message);
      if (replay.length > limits.replayMessages) replay.shift();
      for (const other of sockets.clients) if (other !== client) send(other, message);
    });
  });
  // ws re-emits the HTTP server's errors on itself; listening failures are handled below.
  sockets.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new TroupeError('invalid_input', `inspector port ${port} is in use; pick another with --inspect-port <port>`)
          : new TroupeError('invalid_input', `cannot serve the inspector relay on ${host}:${port}: ${error.message}`),
      ),
    );
    http.listen(port, host, () => resolve());
  });
  const address = http.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const socketUrl = `ws://${host}:${bound}`;
  page = bridgePage(socketUrl);
  return {
    pageUrl: `http://${host}:${bound}`,
    socketUrl,
    host,
    port: bound,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { presentsToken } from './auth.js';
import { type MetricsSource, runtimeMetrics } from './runtimeMetrics.js';

/** Where a metrics endpoint listens, and the token a scrape must present (none: no auth). */
export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly token?: string | undefined;
}

/** A metrics endpoint listening. */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Connections open at once; a scraper needs one (Prometheus keeps it alive), a few more are spare. */
const maxConnections = 16;
/** Longest a request may take to arrive whole: a scrape has no body. */
const requestTimeoutMs = 10_000;

function answer(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
}

/**
 * `GET /metrics` of a process that has no HTTP service of its own (`troupe node --metrics-port`):
 * the same gauges and histograms `troupe serve` reports of its runtime (docs/observability.md),
 * read from `source`, in a registry of the endpoint's own. Nothing else is served; connections
 * and the time a request may take are bounded.
 */
export async function serveMetrics(source: MetricsSource, options: MetricsServerOptions): Promise<MetricsServer> {
  const registry = new Registry();
  const metrics = runtimeMetrics(source, registry);
  /** Why `request` is not answered with the metrics: a status, text and headers; undefined when it is. */
  const refusal = (request: IncomingMessage): [number, string, Record<string, string>?] | undefined => {
    if ((request.url ?? '').split('?', 1)[0] !== '/metrics') return [404, 'only /metrics is served here\n'];
    if (request.method !== 'GET' && request.method !== 'HEAD') return [405, 'GET /metrics\n', { allow: 'GET, HEAD' }];
    if (options.token !== undefined && presentsToken(request.headers.authorization, options.token) !== true) {
      return [401, 'a bearer token is required (Authorization: Bearer <TROUPE_TOKEN>)\n', { 'www-authenticate': 'Bearer' }];
    }
    return undefined;
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refused = refusal(request);
    if (refused !== undefined) {
      answer(response, ...refused);
      return;
    }
    metrics.refresh();
    const text = await registry.metrics();
    response.writeHead(200, { 'content-type': registry.contentType });
    response.end(request.method === 'HEAD' ? undefined : text);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => answer(response, 500, 'the metrics could not be read\n'));
  });
  server.maxConnections = maxConnections;
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = requestTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: async () => {
      metrics.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Runtime } from '../../runtime/index.js';
import type { Redactor } from '../../task/index.js';
import { isLoopback } from '../auth.js';
import { HttpError } from '../httpErrors.js';
import { societyMcpServer } from './societyMcpServer.js';
import { WaitGate } from './waitGate.js';

/** The addresses a connection to this machine's loopback interface arrives on. */
const loopbackAddresses: ReadonlySet<string> = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The host name a `Host` or `Origin` header names, or undefined when it names none. */
function hostnameOf(value: string, scheme: boolean): string | undefined {
  try {
    return new URL(scheme ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * DNS rebinding: a page of another site whose name resolves to 127.0.0.1 reaches a server bound
 * to loopback with its own name as `Host` (and `Origin`). A request that came in on loopback
 * must name loopback in both, as the MCP specification asks of local servers.
 */
function rebindingRefusal(request: FastifyRequest): HttpError | undefined {
  const host = hostnameOf(request.headers.host ?? '', false);
  const origin = request.headers.origin;
  const originHost = origin === undefined ? undefined : hostnameOf(origin, true);
  if (host !== undefined && isLoopback(host) && (origin === undefined || (originHost !== undefined && isLoopback(originHost)))) return undefined;
  return new HttpError('bad_request', 'this server listens on loopback: Host and Origin must name localhost, 127.0.0.1 or [::1] (DNS rebinding protection)', {
    field: origin === undefined || (host !== undefined && !isLoopback(host)) ? 'host' : 'origin',
  });
}

/**
 * Beyond loopback the token guards the endpoint, and a browser page's `Origin` is checked too, as
 * the MCP specification asks: a page may call `/mcp` only from this server's own origin or from
 * one of `corsOrigins` (`*` lets any). Clients that are not browsers send no `Origin`.
 */
function originRefusal(request: FastifyRequest, allowed: readonly string[]): HttpError | undefined {
  const origin = request.headers.origin;
  if (origin === undefined || allowed.includes('*') || allowed.includes(origin)) return undefined;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== undefined && host === request.headers.host) return undefined;
  return new HttpError('origin_not_allowed', `a page of ${origin.slice(0, 200)} may not call /mcp: only this server's own origin and corsOrigins may`, {
    field: 'origin',
  });
}

/** What the route needs besides the runtime. */
export interface McpRouteOptions {
  readonly redactor: Redactor;
  readonly logger: Logger;
  /** Tool calls waiting for an answer at once (`maxMcpWaits`). */
  readonly maxWaits: number;
  /** The origins whose pages may call the API (`corsOrigins`): beyond loopback, the only ones besides the server's own that may call `/mcp`. */
  readonly allowedOrigins: readonly string[];
}

/**
 * `POST /mcp`: the society as an MCP server over Streamable HTTP (docs/mcp-server.md), stateless:
 * each request gets a server and a transport of its own, so no session is kept between requests
 * and a client needs no session id. The service's hooks ran before it (auth, the shutdown's
 * refusals, the body limit). Returns `stop`, which ends the calls waiting for answers (each
 * returns its task id): the shutdown calls it before the runtime drains.
 */
export function registerMcpRoute(app: FastifyInstance, runtime: Runtime, options: McpRouteOptions): { stop: () => void } {
  const stopping = new AbortController();
  const context = { redactor: options.redactor, gate: new WaitGate(options.maxWaits), stopping: stopping.signal, transport: 'tcp' } as const;
  app.post('/mcp', async (request, reply) => {
    const refusal = loopbackAddresses.has(request.socket.localAddress ?? '') ? rebindingRefusal(request) : originRefusal(request, options.allowedOrigins);
    if (refusal !== undefined) throw refusal;
    const server = societyMcpServer(runtime, context);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // The transport writes the response itself (JSON, or an event stream while a call works).
    reply.hijack();
    reply.raw.on('close', () => void server.close());
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      options.logger.error({ error: options.redactor.text(describeError(error)) }, 'an MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    }
  });
  return { stop: () => stopping.abort() };
}

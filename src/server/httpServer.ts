import type { Server } from 'node:http';
import Fastify, { type FastifyHttpOptions, type FastifyInstance, type FastifyRequest } from 'fastify';
import { type Logger, logsAt, silentLogger } from '../logger.js';
import { redactingLogger } from '../task/index.js';
import type { Runtime } from '../runtime/index.js';
import { bearerAuth, isLoopback } from './auth.js';
import { EventLog } from './eventLog.js';
import { registerEventStream } from './eventStream.js';
import { clientErrorHandler, frameworkErrorHandler } from './clientErrors.js';
import { allowOrigins } from './cors.js';
import { HttpError, errorHandler, toResponse } from './httpErrors.js';
import { OpenSockets, closeAfterRefusal } from './lingeringClose.js';
import { redactRefusals } from './redactRefusals.js';
import { methodNotAllowed } from './methodNotAllowed.js';
import { registerIntakeRoutes } from './intakeRoutes.js';
import { registerGraphRoutes } from './graphRoute.js';
import { registerMemoryRoute } from './memoryRoute.js';
import { registerArtifactRoute } from './artifactRoute.js';
import { registerSkillsRoute } from './skillsRoute.js';
import { registerApprovalRoutes } from './approvalRoutes.js';
import { registerMetricsRoute } from './metricsRoute.js';
import { registerDashboardRoutes } from './dashboardRoute.js';
import { registerMachineRoute } from './machineRoute.js';
import { openApiDocument } from './openapi.js';
import { troupeVersion } from '../version.js';
import { registerReadRoutes } from './readRoutes.js';
import { pathOf } from './requestPath.js';
import { type ServerLimitOptions, type ServerLimits, connectionsCheckingIntervalMs, resolveServerLimits } from './serverLimits.js';
import { StreamBudget } from './streamBudget.js';
import { type A2aLimitOptions, createA2aService } from '../a2a/index.js';
import { a2aPath, registerA2aRoutes } from './a2aRoutes.js';
import { registerMcpRoute } from './mcp/mcpRoute.js';

/** The server's options; the limits (`ServerLimitOptions`, docs/http.md, "Limits") each have a default. */
export interface HttpServerOptions extends ServerLimitOptions {
  /** Bearer token every route but `/health` and `/ready` requires; absent or empty: no auth. */
  readonly token?: string | undefined;
  /** Values taken out of every event that leaves the server (model API keys …); the token is always one. */
  readonly secrets?: readonly (string | undefined)[];
  /** Where failed requests (5xx) and, at debug, every request are logged; nowhere by default. */
  readonly logger?: Logger;
  /** Interval of the keep-alive comment on idle event streams (15 s by default). */
  readonly heartbeatMs?: number;
  /** Origins whose browser pages may call the API (CORS), or `['*']` for any; absent or empty: CORS is off. */
  readonly corsOrigins?: readonly string[];
  /** The A2A endpoint's limits (docs/a2a.md, "Limits"), each with a default. */
  readonly a2a?: A2aLimitOptions;
}

/** A Fastify app serving one runtime; `listen` binds it. */
export interface HttpServer {
  readonly app: FastifyInstance;
  /** Binds `host:port` (port 0: any free port) and resolves with the base URL, e.g. `http://127.0.0.1:3000`. */
  listen(options: { port: number; host: string }): Promise<string>;
  /**
   * The first step of a shutdown: intake (`/api/submit`, `/api/send`, new event streams) is
   * answered `503 intake_closed`, `/ready` 503, and the open event streams end; everything
   * else is still served while the runtime drains.
   */
  drain(): void;
  /** Stops accepting connections, ends the event streams and waits for requests in flight. */
  close(): Promise<void>;
}

/** Where new work comes in: refused once the server drains. */
const intakePaths: ReadonlySet<string> = new Set(['/api/submit', '/api/send', '/api/events', a2aPath, '/mcp']);

/** `/health`, and `/ready`: whether the runtime takes work, and how far a restart's restore has got. */
function registerHealthRoutes(app: FastifyInstance, runtime: Runtime, phase: ShutdownPhase): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_, reply) => {
    const running = runtime.state === 'running' && !phase.draining;
    const { done, agents, restored, tasks } = runtime.restoreState();
    // The server may drain a step before the runtime does: it says so rather than `running`.
    const state = phase.draining && runtime.state === 'running' ? 'draining' : running && !done ? 'restoring' : runtime.state;
    return reply.status(running && done ? 200 : 503).send({ ready: running && done, state, ...(done ? {} : { restore: { agents, restored, tasks } }) });
  });
}

/** How far a shutdown has gone: `draining` refuses intake, `closing` every request. */
interface ShutdownPhase {
  closing: boolean;
  draining: boolean;
}

/** Why a request for `url` is refused in this phase of a shutdown, or undefined when it is served. */
function shutdownRefusal(url: string, phase: ShutdownPhase): HttpError | undefined {
  if (phase.closing) return new HttpError('intake_closed', 'the server is shutting down');
  if (phase.draining && intakePaths.has(pathOf(url))) {
    return new HttpError('intake_closed', 'the server is shutting down: it takes no new requests or Tasks while work in flight finishes');
  }
  return undefined;
}

/** Fastify's options: its limits, timeouts and refusals, all in our error format. */
function fastifyOptions(limits: ServerLimits): FastifyHttpOptions<Server> {
  return {
    logger: false,
    bodyLimit: limits.bodyLimitBytes,
    // Headers and bodies are timed out (408), however slowly a client trickles them in.
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: connectionsCheckingIntervalMs(limits) },
    // Refusals made before a route is reached (Node's parser and timeouts, the router) in our error format.
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    // Task ids may be 128 characters long; Fastify's default would answer longer params with a 404.
    routerOptions: { maxParamLength: 200 },
    // Idle keep-alive sockets are closed at once on `close`; event streams are ended by hand.
    forceCloseConnections: 'idle',
    // Fastify's own 503 body is not ours; the `closing` hook below answers in our format instead.
    return503OnClosing: false,
  };
}

/**
 * The HTTP API of a runtime (see docs/http.md, "HTTP API"): intake, reads over the organisation,
 * a live event stream, Prometheus metrics, health and an OpenAPI document. Nothing listens until `listen`. It reads
 * no environment: the token and the secrets to redact come in `options` (the CLI reads them).
 *
 * @example
 * const rt = await createRuntime();
 * const server = createHttpServer(rt, { token: process.env.TROUPE_TOKEN });
 * console.log(await server.listen({ port: 3000, host: '127.0.0.1' }));
 */
export function createHttpServer(runtime: Runtime, options: HttpServerOptions = {}): HttpServer {
  const token = options.token === undefined || options.token === '' ? undefined : options.token;
  const redactor = runtime.redactor.with([token, ...(options.secrets ?? [])]); // the runtime's secrets, the token, any given here
  // A library logs nothing it was not asked to (`troupe serve` passes its own logger); what it
  // logs is redacted with the token too (the request log prints `?access_token=`).
  const logger = redactingLogger(options.logger ?? silentLogger, redactor);
  const limits = resolveServerLimits(options);
  const app = Fastify(fastifyOptions(limits));
  const sockets = new OpenSockets(app.server);
  const corsOn = (options.corsOrigins ?? []).length > 0;
  // First, so its hook answers preflights before auth and puts its headers on refusals too.
  if (corsOn) allowOrigins(app, options.corsOrigins ?? []);
  const answerOtherMethods = methodNotAllowed(app, { corsPreflight: corsOn });
  const phase: ShutdownPhase = { closing: false, draining: false };
  // Hooks take Fastify's `done` rather than being async: a request then costs no promise per hook.
  app.addHook('onRequest', (request, _reply, done) => done(shutdownRefusal(request.url, phase)));
  // JSON only: a text/plain body is refused with a 415 instead of reaching the schemas as a string.
  app.removeContentTypeParser('text/plain');
  const open = new Set<() => void>();
  app.setErrorHandler(errorHandler(logger));
  app.setNotFoundHandler((request, reply) => {
    const { status, body } = toResponse(new HttpError('route_not_found', `no route ${request.method} ${pathOf(request.url)}`));
    return reply.status(status).send(body);
  });
  if (token !== undefined) app.addHook('onRequest', bearerAuth(token));
  app.addHook('onSend', closeAfterRefusal(limits.lingerBytes));
  app.addHook('onSend', redactRefusals(redactor));
  // A line per request only when debug lines are written: otherwise no hook runs for it at all.
  if (logsAt(logger, 'debug')) {
    app.addHook('onResponse', (request, reply, done) => {
      logger.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
      done();
    });
  }
  const mcp = registerMcpRoute(app, runtime, { redactor, logger, maxWaits: limits.maxMcpWaits, allowedOrigins: options.corsOrigins ?? [] });
  const endStreams = (): void => {
    mcp.stop();
    for (const end of [...open]) end();
  };
  app.addHook('preClose', async () => endStreams());
  const log = new EventLog(runtime, redactor, limits.replayBufferEvents);
  const budget = new StreamBudget(limits);
  // One token is one client, whoever presents it; without auth, one address is.
  const clientOf = (request: FastifyRequest): string => (token === undefined ? request.ip : 'token');
  registerIntakeRoutes(app, runtime);
  registerReadRoutes(app, runtime, redactor);
  registerMemoryRoute(app, runtime, redactor);
  registerGraphRoutes(app, runtime, redactor);
  registerArtifactRoute(app, runtime, redactor);
  registerSkillsRoute(app, runtime);
  registerApprovalRoutes(app, runtime, redactor);
  registerMetricsRoute(app, runtime, () => open.size);
  registerMachineRoute(app);
  registerDashboardRoutes(app);
  registerEventStream(app, { log, heartbeatMs: options.heartbeatMs ?? 15_000, open, logger, budget, clientOf });
  const a2a = createA2aService(runtime, { auth: token !== undefined, ...(options.a2a === undefined ? {} : { limits: options.a2a }) });
  registerA2aRoutes(app, { service: a2a, logger, budget, clientOf, open });
  registerHealthRoutes(app, runtime, phase);
  const document = openApiDocument(troupeVersion());
  app.get('/openapi.json', async () => document);
  answerOtherMethods();

  return {
    app,
    listen: async ({ port, host }) => {
      if (token === undefined && !isLoopback(host)) {
        logger.warn({ host }, 'the HTTP API is bound beyond this machine without a token: set TROUPE_TOKEN');
      }
      return app.listen({ port, host });
    },
    drain: () => {
      phase.draining = true;
      endStreams();
    },
    close: () => {
      phase.closing = true;
      const closed = app.close().finally(() => log.close());
      sockets.closeUnused();
      return closed;
    },
  };
}

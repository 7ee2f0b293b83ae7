import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Runtime } from '../runtime/index.js';
import { runtimeMetrics } from './runtimeMetrics.js';

/** Methods a label names; any other (Node's parser knows some thirty) is `other`, so the label stays small. */
const labelledMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of a request no route matched: every unknown path folds into it. */
const unmatchedRoute = 'unmatched';

const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `GET /metrics`: the runtime's and this server's metrics in the Prometheus text format
 * (docs/observability.md, "Metrics"), in a registry of this server's own, never prom-client's
 * global one, so two servers in one process keep theirs apart. Every request is counted by its
 * route's pattern (`/api/agents/:id`, never the raw URL) and status, so the labels stay bounded
 * whatever clients ask for. `sseClients` reads the event streams open now.
 */
export function registerMetricsRoute(app: FastifyInstance, runtime: Runtime, sseClients: () => number): void {
  const registry = new Registry();
  const fromRuntime = runtimeMetrics(runtime, registry);
  const streams = new Gauge({ name: 'troupe_sse_clients', help: 'Event streams (/api/events) open', registers: [registry] });
  const requests = new Counter({
    name: 'troupe_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'troupe_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern, in seconds (an event stream: how long it was open)',
    labelNames: ['method', 'route'],
    buckets: requestBuckets,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const method = labelledMethods.has(request.method) ? request.method : 'other';
    // Fastify's own 404 answers have no route: their paths are whatever a client made up.
    const route = request.routeOptions.url ?? unmatchedRoute;
    requests.inc({ method, route, status: reply.statusCode });
    durations.observe({ method, route }, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onClose', async () => fromRuntime.close());
  app.get('/metrics', async (_, reply) => {
    fromRuntime.refresh();
    streams.set(sseClients());
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

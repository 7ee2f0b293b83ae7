import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Subscription } from 'rxjs';
import { ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Runtime } from '../runtime/index.js';
import { type Task, parseOrThrow } from '../task/index.js';
import type { Redactor } from './redact.js';
import { type EventsQuery, EventsQuerySchema } from './schemas.js';
import type { BudgetedStream, StreamBudget } from './streamBudget.js';

const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // A stream's connection is never reused: when the stream ends, so does the connection (and a
  // closing server is not kept waiting for the client to drop an idle keep-alive socket).
  connection: 'close',
  'x-accel-buffering': 'no',
} as const;

export interface EventStreamDeps {
  readonly runtime: Runtime;
  readonly redactor: Redactor;
  readonly logger: Logger;
  /** Open streams, their buffers and the limits on both. */
  readonly budget: StreamBudget;
  /** Whom a request counts against for `maxEventStreamsPerClient`. */
  readonly clientOf: (request: FastifyRequest) => string;
  /** How often an idle stream gets a comment line, so proxies and clients keep it open. */
  readonly heartbeatMs: number;
  /** Open streams, each with the function that ends it; the server ends them all when it closes. */
  readonly open: Set<() => void>;
}

function wanted(query: EventsQuery): (task: Task) => boolean {
  return (task) =>
    (query.taskId === undefined || task.sessionId === query.taskId || task.id === query.taskId) &&
    (query.agent === undefined || task.from === query.agent || task.to === query.agent);
}

/**
 * `GET /api/events`: every bus Task as a Server-Sent Event (`event: task`, JSON data, redacted),
 * optionally only those of one task tree, one agent or one action pattern. The stream opens
 * with a `: connected` comment, so a client knows it will see everything published after it.
 */
export function registerEventStream(app: FastifyInstance, deps: EventStreamDeps): void {
  app.get('/api/events', (request, reply) => {
    const query = parseOrThrow(EventsQuerySchema, request.query);
    let source;
    try {
      source = deps.runtime.bus.on(query.action);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError('action', error.message.replace(/^pattern: /, ''));
      throw error;
    }
    // HEAD says what a GET would open, and returns: it holds no stream.
    if (request.method === 'HEAD') return reply.headers(sseHeaders).send();
    const client = deps.clientOf(request);
    deps.budget.admit(client);
    const raw: ServerResponse = reply.raw;
    reply.hijack();
    raw.writeHead(200, sseHeaders);
    let sequence = 0;
    const matches = wanted(query);
    // Declared first: a bus that is already closed completes the subscription before it returns.
    const state: { ended: boolean; subscription?: Subscription; heartbeat?: NodeJS.Timeout } = { ended: false };
    const end = (): void => {
      if (state.ended) return;
      state.ended = true;
      state.subscription?.unsubscribe();
      clearInterval(state.heartbeat);
      deps.open.delete(end);
      deps.budget.remove(stream);
      // What a client has not read by the end is dropped with its connection, not kept for it.
      if (raw.writableLength > 0) raw.destroy();
      else if (!raw.writableEnded) raw.end();
    };
    const stream: BudgetedStream = {
      client,
      raw,
      buffered: 0,
      cutOff: (reason) => {
        deps.logger.warn({ client, reason }, 'event stream cut off: the client read too slowly');
        // A reset, not a close: what the kernel still holds for this client is dropped too.
        if (raw.socket === null) raw.destroy();
        else raw.socket.resetAndDestroy();
        end();
      },
    };
    const write = (text: string): void => {
      if (state.ended) return;
      raw.write(text);
      deps.budget.wrote(stream);
    };
    deps.budget.add(stream);
    deps.open.add(end);
    write('retry: 2000\n: connected\n\n');
    state.subscription = source.subscribe({
      next: (task) => {
        if (!matches(task)) return;
        sequence += 1;
        write(`id: ${sequence}\nevent: task\ndata: ${JSON.stringify(deps.redactor.task(task))}\n\n`);
      },
      complete: () => end(),
    });
    if (state.ended) return reply;
    state.heartbeat = setInterval(() => write(': ping\n\n'), deps.heartbeatMs);
    state.heartbeat.unref();
    request.raw.on('close', end);
    return reply;
  });
}

import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Subscription } from 'rxjs';
import { ValidationError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import { type Task, parseOrThrow } from '../task/index.js';
import type { Redactor } from './redact.js';
import { type EventsQuery, EventsQuerySchema } from './schemas.js';

/** A client that lets this much pile up unread is cut off rather than grow the server's memory. */
const maxBufferedBytes = 4 * 1024 * 1024;

export interface EventStreamDeps {
  readonly runtime: Runtime;
  readonly redactor: Redactor;
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
    const raw: ServerResponse = reply.raw;
    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write('retry: 2000\n: connected\n\n');
    let sequence = 0;
    const matches = wanted(query);
    // Declared first: a bus that is already closed completes the subscription before it returns.
    const stream: { ended: boolean; subscription?: Subscription; heartbeat?: NodeJS.Timeout } = { ended: false };
    const end = (): void => {
      stream.ended = true;
      stream.subscription?.unsubscribe();
      clearInterval(stream.heartbeat);
      deps.open.delete(end);
      if (!raw.writableEnded) raw.end();
    };
    stream.subscription = source.subscribe({
      next: (task) => {
        if (!matches(task)) return;
        if (raw.writableLength > maxBufferedBytes) {
          raw.write('event: error\ndata: {"code":"slow_consumer","message":"the client read too slowly"}\n\n');
          end();
          return;
        }
        sequence += 1;
        raw.write(`id: ${sequence}\nevent: task\ndata: ${JSON.stringify(deps.redactor.task(task))}\n\n`);
      },
      complete: () => end(),
    });
    if (stream.ended) return;
    stream.heartbeat = setInterval(() => raw.write(': ping\n\n'), deps.heartbeatMs);
    stream.heartbeat.unref();
    deps.open.add(end);
    request.raw.on('close', end);
  });
}

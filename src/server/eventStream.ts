import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Subscription } from 'rxjs';
import { type ActionPattern, matches, parsePattern } from '../bus/index.js';
import { ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { parseOrThrow } from '../task/index.js';
import type { EventLog, EventPosition, LoggedEvent } from './eventLog.js';
import { type EventsQuery, EventsQuerySchema, LastEventIdSchema } from './schemas.js';
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
  /** Every bus Task, numbered server-wide and redacted, with the recent ones kept for replay. */
  readonly log: EventLog;
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

/**
 * Whether a stream with these filters sends `event`: a Task by its tree, agent and action; an
 * approval by its Task's tree and its agent (it has no action: the action filter is of Tasks).
 */
function wanted(query: EventsQuery, action: ActionPattern): (event: LoggedEvent) => boolean {
  const inTree = (sessionId: string, taskId: string): boolean => query.taskId === undefined || sessionId === query.taskId || taskId === query.taskId;
  return ({ subject }: LoggedEvent) => {
    if (subject.kind === 'approval') {
      const { approval } = subject.news;
      return inTree(approval.sessionId, approval.taskId) && (query.agent === undefined || approval.agentId === query.agent);
    }
    const { task } = subject;
    return (
      matches(action, task.action) && inTree(task.sessionId, task.id) && (query.agent === undefined || task.from === query.agent || task.to === query.agent)
    );
  };
}

function actionPattern(action: string): ActionPattern {
  try {
    return parsePattern(action);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError('action', error.message.replace(/^pattern: /, ''));
    throw error;
  }
}

/** The `Last-Event-ID` header of a reconnecting client, if it sent one. */
function lastEventId(request: FastifyRequest): EventPosition | undefined {
  const header = request.headers['last-event-id'];
  if (header === undefined) return undefined;
  const parsed = LastEventIdSchema.safeParse(header);
  if (!parsed.success)
    throw new ValidationError('Last-Event-ID', `must be an event id as the server sent it ("<run>-<number>"), got "${String(header).slice(0, 40)}"`);
  return parsed.data;
}

const frame = (event: LoggedEvent): string => `id: ${event.id}\nevent: ${event.subject.kind}\ndata: ${event.data}\n\n`;

/**
 * `GET /api/events`: every bus Task as a Server-Sent Event (`event: task`, JSON data, redacted,
 * `id` server-wide and unique across restarts), and every approval asked for or decided
 * (`event: approval`, `{ type: 'waiting' | 'decided', approval }`), optionally only those of one
 * task tree, one agent or (Tasks) one action pattern. The stream opens with a `: connected`
 * comment, so a client knows it will see everything published after it; with `Last-Event-ID` it
 * first gets what it missed, from the log's buffer, or an `event: reset` when that is no longer all there.
 */
export function registerEventStream(app: FastifyInstance, deps: EventStreamDeps): void {
  app.get('/api/events', (request, reply) => {
    const query = parseOrThrow(EventsQuerySchema, request.query);
    const matching = wanted(query, actionPattern(query.action));
    const resumeAfter = lastEventId(request);
    // HEAD says what a GET would open, and returns: it holds no stream.
    if (request.method === 'HEAD') return reply.headers(sseHeaders).send();
    const client = deps.clientOf(request);
    deps.budget.admit(client);
    const raw: ServerResponse = reply.raw;
    reply.hijack();
    raw.writeHead(200, sseHeaders);
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
    // The replay and the subscription happen in one synchronous step: no event falls between.
    if (resumeAfter !== undefined) replay(deps.log, resumeAfter, matching, write);
    state.subscription = deps.log.live.subscribe({
      next: (event) => {
        if (matching(event)) write(frame(event));
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

/** What a client resuming after `last` missed, or a `reset` (carrying the newest id, so it is said once). */
function replay(log: EventLog, last: EventPosition, matching: (event: LoggedEvent) => boolean, write: (text: string) => void): void {
  const missed = log.since(last);
  if (missed.kind === 'reset') {
    write(`id: ${log.lastId}\nevent: reset\ndata: ${JSON.stringify({ reason: missed.reason })}\n\n`);
    return;
  }
  for (const event of missed.events) if (matching(event)) write(frame(event));
}

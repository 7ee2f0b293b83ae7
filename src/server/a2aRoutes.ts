import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type A2aService, type JsonRpcAnswer, idOf } from '../a2a/index.js';
import type { Logger } from '../logger.js';
import { errorHandler, toResponse } from './httpErrors.js';
import type { BudgetedStream, StreamBudget } from './streamBudget.js';

/** Where A2A clients send JSON-RPC requests; the card names it. */
export const a2aPath = '/a2a';
const agentCardPath = '/.well-known/agent-card.json';

export interface A2aRouteDeps {
  readonly service: A2aService;
  readonly logger: Logger;
  /** Open streams and their limits: an A2A stream counts as an event stream. */
  readonly budget: StreamBudget;
  readonly clientOf: (request: FastifyRequest) => string;
  /** Open streams, each with the function that ends it; the server ends them all when it closes. */
  readonly open: Set<() => void>;
}

const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'close',
  'x-accel-buffering': 'no',
};

type AnswerStream = AsyncGenerator<unknown, void, undefined>;

const isStream = (answer: JsonRpcAnswer): answer is JsonRpcAnswer & AnswerStream => Symbol.asyncIterator in answer;

/** A body JSON.parse refused: a JSON-RPC parse error (-32700), not an HTTP one, as an A2A client expects. */
const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } };

/**
 * The A2A endpoint (docs/a2a.md): the agent card at `/.well-known/agent-card.json` (public: it
 * says how to authenticate) and JSON-RPC at `POST /a2a`, behind the API's token, body limit and
 * stream limits. Streaming answers are Server-Sent Events, one JSON-RPC response per event.
 */
export function registerA2aRoutes(app: FastifyInstance, deps: A2aRouteDeps): void {
  app.addContentTypeParser('application/a2a+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  // Its shape follows the client's protocol version (`A2A-Version`): caches must keep one per version.
  app.get(agentCardPath, async (request, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('vary', 'A2A-Version')
      .send(deps.service.card(`${request.protocol}://${request.host}${a2aPath}`, request.headers)),
  );
  const httpErrors = errorHandler(deps.logger);
  app.post(a2aPath, {
    errorHandler: (error, request, reply) => {
      if (toResponse(error).body.error.code === 'malformed_json') void reply.send(parseError);
      else void httpErrors(error, request, reply);
    },
    handler: async (request, reply) => {
      const answer = await deps.service.handle(request.body, request.headers);
      if (!isStream(answer)) return reply.send(answer);
      return stream(request, reply, answer, deps);
    },
  });
}

/** Sends `answers` as Server-Sent Events until they end, the client goes, or the server closes. */
async function stream(request: FastifyRequest, reply: FastifyReply, answers: AnswerStream, deps: A2aRouteDeps): Promise<FastifyReply> {
  const id = idOf(request.body);
  const client = deps.clientOf(request);
  // Before the first answer is read: the SDK starts the work only then, so a refused stream starts none.
  try {
    deps.budget.admit(client);
  } catch (error) {
    await answers.return();
    throw error;
  }
  const raw: ServerResponse = reply.raw;
  reply.hijack();
  raw.writeHead(200, sseHeaders);
  // An object, not a `let`: the closures below change it while the loop reads it.
  const state = { ended: false };
  const end = (): void => {
    if (state.ended) return;
    state.ended = true;
    deps.open.delete(end);
    deps.budget.remove(budgeted);
    // Ends the SDK's side too: its queue for this stream is let go.
    void answers.return();
    // What was written is flushed before the connection closes (a cut-off stream was destroyed already).
    if (!raw.writableEnded) raw.end();
  };
  const budgeted: BudgetedStream = {
    client,
    raw,
    buffered: 0,
    cutOff: (reason) => {
      deps.logger.warn({ client, reason }, 'A2A stream cut off: the client read too slowly');
      raw.destroy();
      end();
    },
  };
  deps.budget.add(budgeted);
  deps.open.add(end);
  // The response's close, not the request's: a POST's request closes once its body is read.
  raw.on('close', end);
  try {
    for await (const answer of answers) {
      if (state.ended) break;
      raw.write(`data: ${JSON.stringify(answer)}\n\n`);
      deps.budget.wrote(budgeted);
    }
  } catch (error) {
    // A stream the SDK could not go on with ends with the JSON-RPC error, as its own servers send it.
    deps.logger.warn({ error: String(error) }, 'A2A stream failed');
    if (!state.ended) raw.write(`event: error\ndata: ${JSON.stringify(deps.service.errorAnswer(error, id))}\n\n`);
  } finally {
    end();
  }
  return reply;
}

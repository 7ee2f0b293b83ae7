import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../../clock.js';
import type { ChatRequest } from '../messages.js';
import { planReply } from '../offlineModel.js';
import { type ChatDeps, answerChat } from './chatCompletions.js';
import { answerEmbeddings } from './embeddings.js';
import { listen, maxBodyBytes, readBody, sendError, sendJson } from './http.js';
import { type EmbeddingPlan, type EmbeddingStep, type ServerAnswer, type ServerStep, embeddingPlanOf, planOf } from './serverSteps.js';

export type { EmbeddingStep, FailureStep, ServerAnswer, ServerStep } from './serverSteps.js';

/** One HTTP request as the server received it; `body` is the parsed JSON, else the raw text (null when over the size limit). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  /** When it arrived, in the server's clock (ms). */
  readonly at: number;
}

export interface OpenAICompatibleServer {
  /** The `baseURL` to give the OpenAI SDK, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  readonly requests: readonly RecordedRequest[];
  /** The request of each valid chat-completion call, in troupe's terms (the latest `keepRequests`). */
  readonly chatRequests: readonly ChatRequest[];
  /** Valid chat-completion calls received so far, including those no longer kept. */
  readonly chatCalls: number;
  /** Queues steps, used one per valid chat-completion call; with none left, the fallback answers. */
  script(...steps: ServerStep[]): void;
  /** Steps not yet used. */
  readonly remaining: number;
  /** Queues steps for embeddings calls, used one per valid call; with none left, the hashed n-gram vectors answer. */
  scriptEmbeddings(...steps: EmbeddingStep[]): void;
  /** Valid embeddings calls received so far. */
  readonly embeddingCalls: number;
  /** Stops listening and destroys every connection, hanging ones included. */
  close(): Promise<void>;
}

export interface OpenAICompatibleServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Answers chat calls when the script is empty (with a reply, or a failure such as `{ hang: true }`); the offline playbook (`planReply`) by default. */
  readonly fallback?: (request: ChatRequest) => ServerAnswer;
  /** Pause before each streamed chunk, to watch a stream arrive. */
  readonly chunkDelayMs?: number;
  readonly clock?: Clock;
  /**
   * How many of the latest requests `requests` and `chatRequests` hold; all by default, as a
   * test wants. A long-running demo or benchmark sets a bound: every body it keeps is memory
   * the process's garbage collector walks again and again.
   */
  readonly keepRequests?: number;
}

/**
 * Starts a local server speaking OpenAI's chat-completions, embeddings and models endpoints,
 * answering from a script and then from a fallback, so the real `openai` SDK can be tested offline.
 * @example
 * const server = await startOpenAICompatibleServer();
 * server.script({ text: 'hello' }, { status: 429, retryAfter: 1 });
 * const client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0 });
 * await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
 * await server.close();
 */
export async function startOpenAICompatibleServer(options: OpenAICompatibleServerOptions = {}): Promise<OpenAICompatibleServer> {
  const { host = '127.0.0.1', fallback = planReply, chunkDelayMs = 0, clock = systemClock, keepRequests = Infinity } = options;
  if (!(keepRequests >= 0)) throw new RangeError(`keepRequests must be a number ≥ 0, got ${String(keepRequests)}`);
  const requests: RecordedRequest[] = [];
  const chatRequests: ChatRequest[] = [];
  let chatCalls = 0;
  const keep = <T>(list: T[], item: T): void => {
    list.push(item);
    if (list.length > keepRequests) list.shift();
  };
  const steps: ServerStep[] = [];
  const embeddingSteps: EmbeddingStep[] = [];
  let embeddingCalls = 0;
  const routes: Routes = {
    startedAt: Math.floor(clock.now() / 1000),
    clock,
    record: (request) => keep(requests, request),
    chat: {
      clock,
      chunkDelayMs,
      next: (chatRequest) => {
        keep(chatRequests, chatRequest);
        chatCalls += 1;
        return { seq: chatCalls, plan: planOf(steps.shift() ?? fallback, chatRequest) };
      },
    },
    embeddings: () => {
      embeddingCalls += 1;
      return embeddingPlanOf(embeddingSteps.shift());
    },
  };
  const server = createServer((request, response) => {
    route(request, response, routes).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `The test server failed: ${error instanceof Error ? error.message : String(error)}`);
      else response.destroy();
    });
  });
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  return {
    baseURL: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    requests,
    chatRequests,
    get chatCalls() {
      return chatCalls;
    },
    script: (...more) => {
      steps.push(...more);
    },
    get remaining() {
      return steps.length;
    },
    scriptEmbeddings: (...more) => {
      embeddingSteps.push(...more);
    },
    get embeddingCalls() {
      return embeddingCalls;
    },
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** What the request router needs from the server that owns it. */
interface Routes {
  /** The server's start, in seconds, as `created` of the model it lists. */
  readonly startedAt: number;
  readonly clock: Clock;
  readonly record: (request: RecordedRequest) => void;
  readonly chat: ChatDeps;
  /** Counts a valid embeddings call and decides its answer. */
  readonly embeddings: () => EmbeddingPlan;
}

/** Records a request, refuses an oversized or non-JSON body, then answers by method and path. */
async function route(request: IncomingMessage, response: ServerResponse, routes: Routes): Promise<void> {
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
  const text = await readBody(request);
  const body = text === undefined ? null : parseJson(text);
  routes.record({ method, path, body: body === undefined ? text : body, headers: request.headers, at: routes.clock.now() });
  if (text === undefined) {
    sendError(response, 413, `The request body exceeds ${maxBodyBytes} bytes.`);
    return;
  }
  const needsJson = method === 'POST';
  if (needsJson && body === undefined) {
    const contentType = request.headers['content-type'] ?? 'none';
    sendError(response, 400, `Could not parse the request body as JSON (content-type: ${contentType}). Send a JSON object.`);
    return;
  }
  switch (`${method} ${path}`) {
    case 'POST /v1/chat/completions':
      await answerChat(body, request, response, routes.chat);
      return;
    case 'POST /v1/embeddings':
      answerEmbeddings(body, request, response, routes.embeddings);
      return;
    case 'GET /v1/models':
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'troupe-offline', object: 'model', created: routes.startedAt, owned_by: 'troupe' }],
      });
      return;
    default:
      sendError(response, 404, `Invalid URL (${method} ${path})`, { code: 'unknown_url' });
  }
}

/** The parsed JSON, or undefined for an empty body or text that is not JSON. */
function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

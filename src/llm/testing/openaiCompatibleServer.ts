import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, sleep, systemClock } from '../../clock.js';
import type { ChatRequest } from '../messages.js';
import { planReply } from '../offlineModel.js';
import { WireChatRequestSchema, fromWireRequest } from '../openaiWire.js';
import type { ScriptReply } from '../scriptedReply.js';
import { type CompletionContext, chunksOf, completionOf, promptTokensOf } from './completionBodies.js';
import { WireEmbeddingsRequestSchema, embeddingsOf } from './embeddingBodies.js';
import { describeInvalidBody, maxBodyBytes, readBody, sendError, sendJson } from './http.js';

/**
 * What the next chat-completion call gets: a reply (or one computed from the request), an HTTP
 * error with OpenAI's error body (`retryAfter` seconds becomes a Retry-After header), a request
 * left unanswered until the client gives up, a destroyed socket, or a stream whose second data
 * line is not JSON (a 200 body that is not JSON when not streaming).
 */
export type ServerStep =
  | ScriptReply
  | ((request: ChatRequest) => ScriptReply)
  | { readonly status: number; readonly message?: string; readonly retryAfter?: number }
  | { readonly hang: true }
  | { readonly dropConnection: true }
  | { readonly malformedChunk: true };

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
  /** Stops listening and destroys every connection, hanging ones included. */
  close(): Promise<void>;
}

export interface OpenAICompatibleServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Answers chat calls when the script is empty; the offline playbook (`planReply`) by default. */
  readonly fallback?: (request: ChatRequest) => ScriptReply;
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

type Plan =
  | { readonly kind: 'reply'; readonly reply: ScriptReply }
  | { readonly kind: 'error'; readonly status: number; readonly message: string; readonly retryAfter?: number | undefined }
  | { readonly kind: 'hang' | 'drop' | 'malformed' };

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
  const startedAt = Math.floor(clock.now() / 1000);

  const planFor = (request: ChatRequest): Plan => {
    const step = steps.shift() ?? fallback;
    try {
      if (typeof step === 'function') return { kind: 'reply', reply: step(request) };
      if ('status' in step) {
        const status = typeof step.status === 'number' ? step.status : 500;
        const retryAfter = 'retryAfter' in step && typeof step.retryAfter === 'number' ? step.retryAfter : undefined;
        const message = 'message' in step && typeof step.message === 'string' ? step.message : `Scripted error ${status}.`;
        return { kind: 'error', status, message, retryAfter };
      }
      if ('hang' in step) return { kind: 'hang' };
      if ('dropConnection' in step) return { kind: 'drop' };
      if ('malformedChunk' in step) return { kind: 'malformed' };
      return { kind: 'reply', reply: step };
    } catch (error) {
      return { kind: 'error', status: 500, message: `The scripted reply failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  };

  const chat = async (body: unknown, request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const parsed = WireChatRequestSchema.safeParse(body);
    if (!parsed.success) {
      const { message, param } = describeInvalidBody(parsed.error, body);
      sendError(response, 400, message, { param });
      return;
    }
    const chatRequest = fromWireRequest(parsed.data);
    keep(chatRequests, chatRequest);
    chatCalls += 1;
    const plan = planFor(chatRequest);
    const seq = chatCalls;
    const context: CompletionContext = {
      id: `chatcmpl-troupe-${seq}`,
      created: Math.floor(clock.now() / 1000),
      model: parsed.data.model,
      callIdPrefix: `call_${seq}`,
      promptTokens: promptTokensOf(chatRequest),
    };
    switch (plan.kind) {
      case 'reply':
        if (parsed.data.stream === true) await stream(response, chunksOf(plan.reply, context, parsed.data.stream_options?.include_usage === true));
        else sendJson(response, 200, completionOf(plan.reply, context));
        return;
      case 'error':
        sendError(response, plan.status, plan.message, { headers: plan.retryAfter === undefined ? {} : { 'retry-after': String(plan.retryAfter) } });
        return;
      case 'hang':
        return; // Never answered: the client aborts, or close() destroys the socket.
      case 'drop':
        request.socket.destroy();
        return;
      case 'malformed':
        if (parsed.data.stream === true) {
          const first = chunksOf({}, context, false).next().value;
          await stream(response, [first, '{"id": "chatcmpl-troupe", "choices": [ this is not JSON']);
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"id": "chatcmpl-troupe", "choices": [ this is not JSON');
        }
        return;
      default: {
        const never: never = plan;
        throw new Error(`unknown plan ${JSON.stringify(never)}`);
      }
    }
  };

  /** Writes each item as an SSE data line (objects as JSON, strings as given), then `[DONE]`; stops when the client goes away. */
  const stream = async (response: ServerResponse, items: Iterable<unknown>): Promise<void> => {
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    try {
      for (const item of items) {
        if (chunkDelayMs > 0) await sleep(clock, chunkDelayMs, gone.signal);
        if (gone.signal.aborted) return;
        response.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`);
      }
      response.end('data: [DONE]\n\n');
    } catch (error) {
      if (!gone.signal.aborted) throw error;
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
    const text = await readBody(request);
    const body = text === undefined ? null : parseJson(text);
    keep(requests, { method, path, body: body === undefined ? text : body, headers: request.headers, at: clock.now() });
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
        await chat(body, request, response);
        return;
      case 'POST /v1/embeddings': {
        const parsed = WireEmbeddingsRequestSchema.safeParse(body);
        if (parsed.success) {
          sendJson(response, 200, embeddingsOf(parsed.data));
        } else {
          const { message, param } = describeInvalidBody(parsed.error, body);
          sendError(response, 400, message, { param });
        }
        return;
      }
      case 'GET /v1/models':
        sendJson(response, 200, { object: 'list', data: [{ id: 'troupe-offline', object: 'model', created: startedAt, owned_by: 'troupe' }] });
        return;
      default:
        sendError(response, 404, `Invalid URL (${method} ${path})`, { code: 'unknown_url' });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `The test server failed: ${error instanceof Error ? error.message : String(error)}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
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
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
      return closed;
    },
  };
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

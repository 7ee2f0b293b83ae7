import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { type Clock, sleep } from '../../clock.js';
import { type CompletionContext, chunksOf } from './completionBodies.js';

/** Larger request bodies are refused with 413, as OpenAI refuses oversized payloads. */
export const maxBodyBytes = 10 * 1024 * 1024;

/** OpenAI's error body: what the SDK reads into `APIError.error`, `.code`, `.param` and `.type`. */
export interface ErrorEnvelope {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null };
}

/** The whole body as text, or undefined when it exceeds `limit` (the rest is drained, not kept). */
export async function readBody(request: IncomingMessage, limit = maxBodyBytes): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** OpenAI's error `type` and default `code` for a status, so the SDK maps it to the same error class and fields. */
function errorKindOf(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 403) return { type: 'permission_error', code: null };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

function errorEnvelope(status: number, message: string, param: string | null = null, code?: string | null): ErrorEnvelope {
  const kind = errorKindOf(status);
  return { error: { message, type: kind.type, param, code: code === undefined ? kind.code : code } };
}

export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  options: { param?: string | null; code?: string | null; headers?: OutgoingHttpHeaders } = {},
): void {
  sendJson(response, status, errorEnvelope(status, message, options.param ?? null, options.code), options.headers);
}

/** The first problem of a failed body validation, worded like OpenAI's and naming the field (`messages[0].role`). */
export function describeInvalidBody(error: z.ZodError, body: unknown): { message: string; param: string | null } {
  const issue = error.issues[0];
  if (issue === undefined || issue.path.length === 0) return { message: 'The request body must be a JSON object.', param: null };
  const param = issue.path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`)).join('');
  if (valueAt(body, issue.path) === undefined) return { message: `Missing required parameter: '${param}'.`, param };
  return { message: `Invalid value for '${param}': ${issue.message}`, param };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Writes each item as an SSE data line (objects as JSON, strings as given), `delayMs` apart, then
 * `[DONE]`; stops when the client goes away.
 */
export async function sendEventStream(response: ServerResponse, items: Iterable<unknown>, clock: Clock, delayMs: number): Promise<void> {
  const gone = startEventStream(response);
  try {
    for (const item of items) {
      if (delayMs > 0) await sleep(clock, delayMs, gone);
      if (gone.aborted) return;
      response.write(eventOf(item));
    }
    response.end('data: [DONE]\n\n');
  } catch (error) {
    if (!gone.aborted) throw error;
  }
}

/** Writes an event stream's status and headers; the signal aborts when the client goes away. */
export function startEventStream(response: ServerResponse): AbortSignal {
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return gone.signal;
}

/** One SSE data event: an object as JSON, a string as given. */
export function eventOf(item: unknown): string {
  return `data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`;
}

const paddingChunkChars = 64 * 1024;

/**
 * A valid streamed reply of at least `bytes` bytes of text chunks, written as fast as the client
 * reads it (waiting for each drain, so the server never holds the whole of it), then `[DONE]`.
 */
export async function sendLargeEventStream(response: ServerResponse, context: CompletionContext, bytes: number): Promise<void> {
  const gone = startEventStream(response);
  const [role, text] = chunksOf({ text: 'x'.repeat(paddingChunkChars) }, context, false);
  const pieces = [eventOf(role), eventOf(text)];
  for (let written = 0, i = 0; written < bytes && !gone.aborted; i = 1) {
    const piece = pieces[i] ?? '';
    written += Buffer.byteLength(piece);
    if (!response.write(piece)) await drainOrClose(response);
  }
  if (!gone.aborted) response.end('data: [DONE]\n\n');
}

function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

/** Resolves once `server` listens on `port` (0: a free one) at `host`; rejects if it cannot. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

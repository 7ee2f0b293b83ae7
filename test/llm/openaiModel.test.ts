import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIError, APIUserAbortError, BadRequestError, InternalServerError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatDelta, OpenAIModel, RetryingModel, classifyModelError, collectReply, defaultRetryPolicy } from '../../src/llm/index.js';
import { TroupeError, describeError } from '../../src/errors.js';
import { MemoryLogger, startOpenAICompatibleServer } from '../../src/testing.js';

// OpenAIModel through the real `openai` package over loopback: against the local server, and
// against a bare HTTP server that writes the SSE bytes a test gives it, as odd servers do.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

async function drain(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const deltas: ChatDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

/** Where a body drops its connection instead of going on. */
const drop = Symbol('drop the connection');

/** A server answering each chat call with the next list of raw body pieces, written apart. */
async function rawSseServer(bodies: (readonly (string | Buffer | typeof drop)[])[]): Promise<{ baseURL: string }> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const pieces = bodies.shift() ?? ['data: [DONE]\n\n'];
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_raw' });
      const write = (i: number): void => {
        const piece = pieces[i];
        if (piece === undefined) {
          res.end();
          return;
        }
        if (piece === drop) {
          res.socket?.destroy();
          return;
        }
        res.write(piece);
        setTimeout(() => write(i + 1), 2);
      };
      write(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const data = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;
const textChunk = (content: string): unknown => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

describe('OpenAIModel', () => {
  it('streams text and tool calls from the local server, with usage', async () => {
    const server = await startOpenAICompatibleServer();
    closers.push(() => server.close());
    server.script({
      text: 'calling a tool',
      toolCalls: [
        { name: 'echo', arguments: { n: 1 } },
        { name: 'echo', arguments: { n: 2 } },
      ],
    });
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    const reply = await collectReply(model.chat(request));
    expect(reply.message.content).toBe('calling a tool');
    expect(reply.message.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown])).toEqual([
      ['echo', { n: 1 }],
      ['echo', { n: 2 }],
    ]);
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.usage?.completionTokens).toBeGreaterThan(0);
  });

  it("sends a request's maxTokens as max_completion_tokens, and nothing when it has none", async () => {
    const server = await startOpenAICompatibleServer();
    closers.push(() => server.close());
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    await collectReply(model.chat({ ...request, maxTokens: 64 }));
    await collectReply(model.chat(request));
    const bodies = server.requests.map((recorded) => recorded.body as Record<string, unknown>);
    expect(bodies.map((body) => body['max_completion_tokens'])).toEqual([64, undefined]);
  });

  it('ends a stream quietly when its signal aborts mid-way, and the next call goes through', async () => {
    const server = await startOpenAICompatibleServer({ chunkDelayMs: 20 });
    closers.push(() => server.close());
    server.script({ text: 'one two three four five six seven eight nine ten' }, { text: 'still here' });
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const delta of model.chat(request, { signal: controller.signal })) {
      if (delta.type === 'text') seen.push(delta.text);
      if (seen.length === 3) controller.abort();
    }
    expect(seen).toHaveLength(3);
    expect((await collectReply(model.chat(request))).message.content).toBe('still here');
  });

  it.each([
    [400, BadRequestError, 'invalid_request_error'],
    [500, InternalServerError, 'server_error'],
  ] as const)('turns a %i into a model_error naming the status, the SDK error as its cause, before any stream starts', async (status, sdkError, type) => {
    const server = await startOpenAICompatibleServer();
    closers.push(() => server.close());
    server.script({ status, message: 'boom' });
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    const caught: unknown = await drain(model.chat(request)).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(TroupeError);
    expect(caught).toMatchObject({ code: 'model_error', message: `model openai:m at ${server.baseURL} failed: HTTP ${status} ${type}: boom` });
    expect(describeError(caught)).toBe(`model openai:m at ${server.baseURL} failed: HTTP ${status} ${type}: boom`);
    expect((caught as TroupeError).cause).toBeInstanceOf(sdkError);
  });

  it('under the retry layer, ends in a model_error once retries are spent (500) or at once (400)', async () => {
    const server = await startOpenAICompatibleServer();
    closers.push(() => server.close());
    const model = new RetryingModel(
      new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' }),
      { ...defaultRetryPolicy, maxRetries: 2, baseDelayMs: 1 },
      { logger: new MemoryLogger() },
    );
    server.script(
      { status: 500, message: 'down' },
      { status: 500, message: 'down' },
      { status: 500, message: 'still down' },
      { status: 400, message: 'bad tools' },
    );
    const spent: unknown = await drain(model.chat(request)).catch((error: unknown) => error);
    expect(spent).toMatchObject({ code: 'model_error', message: `model openai:m at ${server.baseURL} failed: HTTP 500 server_error: still down` });
    expect((spent as TroupeError).cause).toBeInstanceOf(InternalServerError);
    const before = server.chatRequests.length;
    const refused: unknown = await drain(model.chat(request)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'model_error', message: `model openai:m at ${server.baseURL} failed: HTTP 400 invalid_request_error: bad tools` });
    expect((refused as TroupeError).cause).toBeInstanceOf(BadRequestError);
    expect(server.chatRequests.length - before).toBe(1);
  });

  it('keeps an abort an abort, not a model_error', async () => {
    const server = await startOpenAICompatibleServer({ chunkDelayMs: 20 });
    closers.push(() => server.close());
    const model = new RetryingModel(
      new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' }),
      { ...defaultRetryPolicy, baseDelayMs: 1 },
      { logger: new MemoryLogger() },
    );
    const controller = new AbortController();
    controller.abort(new Error('agent terminated'));
    const caught: unknown = await drain(model.chat(request, { signal: controller.signal })).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(APIUserAbortError);
  });

  it('reads CRLF lines, comments and events split across writes, a character cut in two included', async () => {
    // Cut inside the three bytes of ☂.
    const first = Buffer.from(`data: ${JSON.stringify(textChunk('héllo ☂'))}\r\n\r\n`);
    const cutAt = first.indexOf(Buffer.from('☂')) + 1;
    const { baseURL } = await rawSseServer([
      [': ping\r\n\r\n', first.subarray(0, cutAt), first.subarray(cutAt), data(textChunk(' rain')).replaceAll('\n', '\r\n'), 'data: [DO', 'NE]\r\n\r\n'],
      [data(textChunk('again')), 'data: [DONE]\n\n'],
    ]);
    const model = new OpenAIModel({ apiKey: 'test', baseURL, model: 'm', includeUsage: false });
    expect((await collectReply(model.chat(request))).message.content).toBe('héllo ☂ rain');
    expect((await collectReply(model.chat(request))).message.content).toBe('again');
  });

  it('lets a connection dropped mid-stream through as a network error the retry layer retries', async () => {
    const { baseURL } = await rawSseServer([[data(textChunk('partial')), drop]]);
    const model = new OpenAIModel({ apiKey: 'test', baseURL, model: 'm' });
    const caught: unknown = await drain(model.chat(request)).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(Error);
    expect(classifyModelError(caught)).toEqual({ retryable: true });
  });

  it('reruns a stream dropped mid-way from the start under the retry layer', async () => {
    const { baseURL } = await rawSseServer([
      [data(textChunk('half an ans')), drop],
      [data(textChunk('the whole answer')), 'data: [DONE]\n\n'],
    ]);
    const model = new RetryingModel(
      new OpenAIModel({ apiKey: 'test', baseURL, model: 'm' }),
      { ...defaultRetryPolicy, baseDelayMs: 1 },
      { logger: new MemoryLogger() },
    );
    const deltas = await drain(model.chat(request));
    expect(deltas.filter((delta) => delta.type === 'restart')).toEqual([{ type: 'restart', attempt: 1 }]);
    expect(
      (
        await collectReply(
          (async function* () {
            yield* deltas;
          })(),
        )
      ).message.content,
    ).toBe('the whole answer');
  });

  it('throws a model_error caused by the SDK APIError for an error sent mid-stream', async () => {
    const { baseURL } = await rawSseServer([[data(textChunk('partial')), data({ error: { message: 'overloaded', type: 'server_error' } })]]);
    const model = new OpenAIModel({ apiKey: 'test', baseURL, model: 'm' });
    const caught: unknown = await drain(model.chat(request)).catch((error: unknown) => error);
    expect(caught).toMatchObject({ code: 'model_error', message: `model openai:m at ${baseURL} failed: server_error: overloaded` });
    expect((caught as TroupeError).cause).toBeInstanceOf(APIError);
    expect((caught as TroupeError).cause).toMatchObject({ message: 'overloaded', status: undefined });
  });
});

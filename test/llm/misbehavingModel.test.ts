import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { APIConnectionTimeoutError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatDelta,
  OpenAIModel,
  type RetryNotice,
  RetryingModel,
  classifyModelError,
  collectReply,
  defaultRetryPolicy,
  isSetupFailure,
} from '../../src/llm/index.js';
import { TroupeError } from '../../src/errors.js';
import { MemoryLogger, type OpenAICompatibleServer, SimulatedClock, startOpenAICompatibleServer } from '../../src/testing.js';
import { failureOf } from '../support/streamFailure.js';

// Models that misbehave, through the real `openai` package over loopback against the local
// server: replies too large, streams that stall, 200s that are no stream. Timeouts run on a
// SimulatedClock, moved only once the stream has shown what the test waits for.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

async function localServer(): Promise<OpenAICompatibleServer> {
  const server = await startOpenAICompatibleServer();
  closers.push(() => server.close());
  return server;
}

/**
 * Reads `stream` to its end; each time a text delta `stalled` arrives (a stalled attempt has
 * begun), moves the clock by `advanceMs` so the attempt's timeout fires. Returns the deltas, or
 * the error the stream ended with.
 */
async function readMovingClock(stream: AsyncIterable<ChatDelta>, clock: SimulatedClock, advanceMs: number): Promise<{ deltas: ChatDelta[]; error?: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) {
      deltas.push(delta);
      if (delta.type === 'text' && delta.text.startsWith('stalled')) clock.advance(advanceMs);
    }
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

async function* replay(deltas: readonly ChatDelta[]): AsyncGenerator<ChatDelta> {
  yield* deltas;
}

describe('a reply larger than maxReplyBytes', () => {
  it('fails the call with a model_error naming the limit, and is not retried', async () => {
    const server = await localServer();
    server.script({ replyBytes: 2 * 1024 * 1024 });
    const model = new RetryingModel(new OpenAIModel({ baseURL: server.baseURL, model: 'm', maxReplyBytes: 256 * 1024 }), {
      ...defaultRetryPolicy,
      baseDelayMs: 1,
    });
    const caught = await failureOf(model.chat(request));
    expect(caught).toBeInstanceOf(TroupeError);
    expect(caught).toMatchObject({
      code: 'model_error',
      message: `model openai:m at ${server.baseURL} failed: the reply is larger than 262144 bytes (maxReplyBytes)`,
    });
    expect(server.chatCalls).toBe(1);
  });

  it('takes a reply within the limit', async () => {
    const server = await localServer();
    server.script({ replyBytes: 200 * 1024 });
    const reply = await collectReply(new OpenAIModel({ baseURL: server.baseURL, model: 'm', maxReplyBytes: 1024 * 1024 }).chat(request));
    expect(reply.message.content.length).toBeGreaterThanOrEqual(190 * 1024);
  });

  it('bounds the bodies the SDK reads whole too, an embedding reply and an error page', async () => {
    const server = await localServer();
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'm', maxReplyBytes: 16 * 1024 });
    expect(await model.embed(['one short text'])).toHaveLength(1);
    const caught: unknown = await model.embed(Array.from({ length: 40 }, (_, i) => `text ${i}`)).catch((error: unknown) => error);
    expect(caught).toMatchObject({
      code: 'model_error',
      message: `model openai:m at ${server.baseURL} failed: the reply is larger than 16384 bytes (maxReplyBytes)`,
    });
    server.script({ raw: { status: 502, contentType: 'text/html', body: `<html>${'bad gateway '.repeat(10_000)}</html>` } });
    expect(await failureOf(model.chat(request))).toMatchObject({
      message: expect.stringMatching(/HTTP 502: .*the reply is larger than 16384 bytes \(maxReplyBytes\)/) as string,
    });
  });

  it.each([
    ['maxReplyBytes', { maxReplyBytes: 0 }],
    ['timeoutMs', { timeoutMs: -1 }],
    ['idleTimeoutMs', { idleTimeoutMs: 1.5 }],
  ])('refuses a bad %s, naming it', (field, limits) => {
    expect(() => new OpenAIModel({ model: 'm', ...limits })).toThrow(expect.objectContaining({ code: 'invalid_input', field }) as Error);
  });
});

describe('a stalled stream', () => {
  it('times out after idleTimeoutMs of silence, as a retryable timeout', async () => {
    const server = await localServer();
    server.script({ stallAfter: 'stalled half an answer' });
    const clock = new SimulatedClock();
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'm', clock, idleTimeoutMs: 5000 });
    const { deltas, error } = await readMovingClock(model.chat(request), clock, 5000);
    expect(deltas.map((delta) => (delta.type === 'text' ? delta.text : delta.type))).toEqual(['stalled ', 'half ', 'an ', 'answer']);
    expect(error).toMatchObject({
      code: 'model_error',
      message: `model openai:m at ${server.baseURL} failed: the stream was silent for 5000 ms (idleTimeoutMs)`,
    });
    expect((error as TroupeError).cause).toBeInstanceOf(APIConnectionTimeoutError);
    expect(classifyModelError(error).retryable).toBe(true);
  });

  it('times out after timeoutMs for the whole attempt, however busy the stream', async () => {
    const server = await localServer();
    server.script({ stallAfter: 'stalled' });
    const clock = new SimulatedClock();
    // The idle timeout never comes first: the attempt's does.
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'm', clock, timeoutMs: 10_000, idleTimeoutMs: 60_000 });
    const { error } = await readMovingClock(model.chat(request), clock, 10_000);
    expect(error).toMatchObject({ code: 'model_error', message: `model openai:m at ${server.baseURL} failed: no complete reply within 10000 ms (timeoutMs)` });
    expect(classifyModelError(error).retryable).toBe(true);
  });

  it('times out a request whose headers never come, after timeoutMs (the SDK times that wait, on the real clock: set small)', async () => {
    const server = await localServer();
    server.script({ hang: true });
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'm', timeoutMs: 100 });
    const caught = await failureOf(model.chat(request));
    expect(caught).toMatchObject({ message: `model openai:m at ${server.baseURL} failed: no complete reply within 100 ms (timeoutMs)` });
    expect(classifyModelError(caught).retryable).toBe(true);
  });

  it('fails an attempt whose time ran out (on its clock) before the headers came, even if a whole reply follows', async () => {
    const serverClock = new SimulatedClock();
    const server = await startOpenAICompatibleServer({ clock: serverClock, chunkDelayMs: 10 });
    closers.push(() => server.close());
    server.script({ text: 'too late' });
    const clock = new SimulatedClock();
    const pending = failureOf(new OpenAIModel({ baseURL: server.baseURL, model: 'm', clock, timeoutMs: 10_000 }).chat(request));
    while (server.chatCalls === 0) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(10_000);
    // Only now does the server send its headers and the reply, paced on its own clock.
    let outcome: unknown;
    void pending.then((caught) => (outcome = caught));
    while (outcome === undefined) {
      serverClock.advance(10);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(outcome).toMatchObject({ message: expect.stringContaining('no complete reply within 10000 ms (timeoutMs)') as string });
  });

  it('is rerun from the start under the retry layer, and the call is bounded: it gives up after maxRetries + 1 attempts', async () => {
    const server = await localServer();
    server.script({ stallAfter: 'stalled once' }, { text: 'the whole answer' });
    const clock = new SimulatedClock();
    const logger = new MemoryLogger();
    const retrying = new RetryingModel(
      new OpenAIModel({ baseURL: server.baseURL, model: 'm', clock, idleTimeoutMs: 1000 }),
      { ...defaultRetryPolicy, baseDelayMs: 1 },
      { logger },
    );
    const { deltas } = await readMovingClock(retrying.chat(request), clock, 1000);
    const restarted = deltas.slice(deltas.findIndex((delta) => delta.type === 'restart'));
    expect((await collectReply(replay(restarted))).message.content).toBe('the whole answer');
    expect(logger.entries.map((entry) => entry.message)).toEqual(['model call failed; retrying']);

    server.script(...Array.from({ length: 4 }, () => ({ stallAfter: 'stalled again' })));
    const before = server.chatCalls;
    const spent = await readMovingClock(retrying.chat(request), clock, 1000);
    expect(server.chatCalls - before).toBe(defaultRetryPolicy.maxRetries + 1);
    expect(spent.error).toMatchObject({ code: 'model_error', message: expect.stringContaining('the stream was silent for 1000 ms') as string });
  });
});

describe('a 200 that is not an event stream', () => {
  it.each([
    [
      'an HTML page',
      { contentType: 'text/html; charset=utf-8', body: '<!doctype html>\n<html><title>Open WebUI</title></html>' },
      'content-type text/html; charset=utf-8 where an event stream (text/event-stream) was asked for, starting "<!doctype html> <html><title>Open WebUI</title></html>"',
    ],
    ['an empty body', { body: '' }, 'content-type none where an event stream (text/event-stream) was asked for, and an empty body'],
    [
      'JSON',
      { contentType: 'application/json', body: '{"id":"x","object":"chat.completion","choices":[]}' },
      'content-type application/json where an event stream (text/event-stream) was asked for, starting "{"id":"x"',
    ],
  ])('fails the call with a model_error naming the content type: %s, unretried', async (_what, raw, said) => {
    const server = await localServer();
    server.script({ raw });
    const model = new RetryingModel(new OpenAIModel({ baseURL: server.baseURL, model: 'm' }), { ...defaultRetryPolicy, baseDelayMs: 1 });
    const caught = await failureOf(model.chat(request));
    expect(caught).toMatchObject({
      code: 'model_error',
      message: expect.stringContaining(`model openai:m at ${server.baseURL} failed: the server answered 200 with ${said}`) as string,
    });
    expect(server.chatCalls).toBe(1);
  });

  it('fails an event stream that ends without a single chunk', async () => {
    const server = await localServer();
    server.script({ raw: { contentType: 'text/event-stream', body: 'data: [DONE]\n\n' } });
    const caught = await failureOf(new OpenAIModel({ baseURL: server.baseURL, model: 'm' }).chat(request));
    expect(caught).toMatchObject({ code: 'model_error', message: expect.stringContaining('the event stream ended without a single chunk') as string });
  });
});

/** An address nothing listens on: a port just freed. */
async function deadAddress(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

describe('setup errors read as setup errors', () => {
  it('an unreachable endpoint: names the URL, ECONNREFUSED and what to check, after its retries', async () => {
    const baseURL = await deadAddress();
    const givenUp: unknown[] = [];
    const notices: RetryNotice[] = [];
    const model = new RetryingModel(
      new OpenAIModel({ baseURL, model: 'm' }),
      { ...defaultRetryPolicy, maxRetries: 2, baseDelayMs: 1 },
      { onRetry: (notice) => notices.push(notice), onGiveUp: (error) => givenUp.push(error) },
    );
    const caught = await failureOf(model.chat(request));
    expect(caught).toMatchObject({
      code: 'model_error',
      message: expect.stringMatching(
        new RegExp(
          `^model openai:m at ${baseURL} failed: connection failed: ECONNREFUSED \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\); is the server running, and is this its address\\?$`,
        ),
      ) as string,
    });
    expect(isSetupFailure(caught)).toBe(true);
    expect(givenUp).toEqual([caught]);
    expect(notices.map((notice) => [notice.attempt, notice.of, notice.what])).toEqual([
      [1, 2, 'call'],
      [2, 2, 'call'],
    ]);
    expect(notices[0]?.error).toContain('ECONNREFUSED');
  });

  it('a refused key (401): names the URL, the status and the key, unretried', async () => {
    const server = await localServer();
    server.script({ status: 401, message: 'Incorrect API key provided: sk-bad.' });
    const model = new RetryingModel(new OpenAIModel({ apiKey: 'sk-bad', baseURL: server.baseURL, model: 'm' }), { ...defaultRetryPolicy, baseDelayMs: 1 });
    const caught = await failureOf(model.chat(request));
    expect(caught).toMatchObject({
      code: 'model_error',
      message: `model openai:m at ${server.baseURL} failed: HTTP 401 invalid_request_error: Incorrect API key provided: sk-bad.; the server refused the API key: check the key, and that it may use this model`,
    });
    expect(isSetupFailure(caught)).toBe(true);
    expect(server.chatCalls).toBe(1);
  });

  it('a model that does not exist (404): asks whether it is served there', async () => {
    const server = await localServer();
    server.script({ status: 404, message: 'The model `gpt-9` does not exist.', code: 'model_not_found' });
    const caught = await failureOf(new OpenAIModel({ baseURL: server.baseURL, model: 'gpt-9' }).chat(request));
    expect(caught).toMatchObject({
      message: `model openai:gpt-9 at ${server.baseURL} failed: HTTP 404 invalid_request_error: The model \`gpt-9\` does not exist.; is the model served there? (GET ${server.baseURL}/models lists them)`,
    });
    expect(isSetupFailure(caught)).toBe(true);
  });

  it('a base URL without /v1 (404 from the server): suggests the URL with /v1', async () => {
    const server = await localServer();
    const bare = server.baseURL.replace(/\/v1$/, '');
    const caught = await failureOf(new OpenAIModel({ baseURL: bare, model: 'm' }).chat(request));
    expect(caught).toMatchObject({
      message: `model openai:m at ${bare} failed: HTTP 404 invalid_request_error: Invalid URL (POST /chat/completions); OpenAI-compatible servers serve under /v1: try ${bare}/v1`,
    });
    expect(isSetupFailure(caught)).toBe(true);
  });

  it('a 500 or a stall is not a setup error', async () => {
    const server = await localServer();
    server.script({ status: 500 });
    expect(isSetupFailure(await failureOf(new OpenAIModel({ baseURL: server.baseURL, model: 'm' }).chat(request)))).toBe(false);
    expect(isSetupFailure(new TroupeError('model_error', 'x', { cause: new APIConnectionTimeoutError({ message: 'silent' }) }))).toBe(false);
  });
});

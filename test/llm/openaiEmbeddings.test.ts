import { APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { TroupeError, ValidationError } from '../../src/errors.js';
import { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from '../../src/llm/index.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import type { Embedder } from '../../src/memory/embedding/embedder.js';
import { MemoryLogger, type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';

// OpenAIEmbeddings over real HTTP: the official `openai` package talking to the local
// OpenAI-compatible server, which embeds with the offline embedder's algorithm.

const later = cleanupAfterEach();
const quickRetries = { maxRetries: 2, baseDelayMs: 0, maxDelayMs: 0, jitter: 0 };

async function served(options: Partial<OpenAIEmbeddingsOptions> = {}): Promise<{ server: OpenAICompatibleServer; embeddings: OpenAIEmbeddings }> {
  const server = await startOpenAICompatibleServer();
  later(() => server.close());
  const embeddings = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'test-embed', dimension: 384, retry: quickRetries, ...options });
  return { server, embeddings };
}

function inputsOf(server: OpenAICompatibleServer): unknown[] {
  return server.requests.filter((request) => request.path === '/v1/embeddings').map((request) => (request.body as { input: unknown }).input);
}

const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Asserts that `error` is a model_error whose message matches `message`. */
function expectModelError(error: unknown, message: RegExp): void {
  expect(error).toBeInstanceOf(TroupeError);
  expect((error as TroupeError).code).toBe('model_error');
  expect((error as TroupeError).message).toMatch(message);
}

describe('OpenAIEmbeddings', () => {
  it('is an Embedder whose vectors are the server’s, unit length, in order, in batches of batchSize', async () => {
    const { server, embeddings } = await served({ batchSize: 3 });
    const embedder: Embedder = embeddings;
    const texts = Array.from({ length: 7 }, (_, i) => `fact number ${i} about the user`);
    const vectors = await embedder.embed(texts);
    expect(embedder).toMatchObject({ id: 'openai:test-embed', dimension: 384 });
    expect(server.embeddingCalls).toBe(3);
    expect(inputsOf(server)).toEqual([texts.slice(0, 3), texts.slice(3, 6), texts.slice(6)]);
    const offline = await new HashedNgramEmbedder().embed(texts);
    for (const [index, vector] of vectors.entries()) {
      expect(vector).toBeInstanceOf(Float32Array);
      vector.forEach((value, i) => expect(Math.abs(value - (offline[index]?.[i] ?? Number.NaN))).toBeLessThan(1e-6));
    }
    expect(await embeddings.embed([])).toEqual([]);
  });

  it('normalises vectors the server did not', async () => {
    const { server, embeddings } = await served({ dimension: 2 });
    server.scriptEmbeddings({ vectors: [[3, 4]] });
    expect(Array.from((await embeddings.embed(['x']))[0] ?? [])).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    server.scriptEmbeddings({ vectors: [[0, 0]] });
    expectModelError(await caught(embeddings.embed(['x'])), /cannot be normalised/);
  });

  it('knows the length of OpenAI’s models, asks for a length when told to, and refuses a reply of another length naming both', async () => {
    const { server, embeddings } = await served({ model: 'text-embedding-3-small', dimension: undefined });
    expect(embeddings.dimension).toBe(1536);
    const error = await caught(embeddings.embed(['hello']));
    expect(error).toBeInstanceOf(TroupeError);
    expect(error).toMatchObject({ code: 'model_error' });
    expect((error as Error).message).toMatch(
      /openai:text-embedding-3-small at http:\/\/127\.0\.0\.1:\d+\/v1 returned a vector of 384 numbers where 1536 were expected \(dimension\)/,
    );
    expect(server.embeddingCalls).toBe(1); // not retried: the same model gives the same length

    const asking = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'text-embedding-3-small', dimension: 256, askDimension: true });
    expect((await asking.embed(['hello']))[0]).toHaveLength(256);
    expect(server.requests.at(-1)?.body).toMatchObject({ dimensions: 256, model: 'text-embedding-3-small' });
  });

  it('refuses options it cannot use, naming them', () => {
    expect(() => new OpenAIEmbeddings({ model: 'nomic-embed-text' })).toThrow(
      /OpenAIEmbeddings\.dimension: the length of nomic-embed-text's vectors is not known/,
    );
    for (const bad of [{ batchSize: 0 }, { batchSize: 5000 }, { dimension: -1 }, { model: ' ' }] satisfies OpenAIEmbeddingsOptions[]) {
      const key = Object.keys(bad)[0] ?? '';
      expect(() => new OpenAIEmbeddings({ dimension: 8, ...bad })).toThrow(ValidationError);
      expect(() => new OpenAIEmbeddings({ dimension: 8, ...bad })).toThrow(new RegExp(`OpenAIEmbeddings\\.${key}`));
    }
    expect(() => new OpenAIEmbeddings({ dimension: 8, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('retries 429 and 5xx on the retry schedule, logging each retry', async () => {
    const logger = new MemoryLogger();
    const { server, embeddings } = await served({ logger });
    server.scriptEmbeddings({ status: 429, message: 'slow down' }, { status: 503 });
    expect(await embeddings.embed(['after two failures'])).toHaveLength(1);
    expect(server.embeddingCalls).toBe(3);
    expect(logger.entries.filter((entry) => entry.message === 'model call failed; retrying').map((entry) => entry.fields['what'])).toEqual(['embed', 'embed']);
  });

  it('gives up with model_error naming the model, the endpoint and what the server said', async () => {
    const { server, embeddings } = await served();
    server.scriptEmbeddings({ status: 400, message: 'input too long' });
    const refused = await caught(embeddings.embed(['x']));
    expectModelError(refused, /model openai:test-embed at .*\/v1 failed: HTTP 400 .*input too long/);
    expect(server.embeddingCalls).toBe(1);

    server.scriptEmbeddings({ status: 500 }, { status: 500 }, { status: 500 });
    expectModelError(await caught(embeddings.embed(['x'])), /HTTP 500/);
    expect(server.embeddingCalls).toBe(4);
  });

  it('fails a 200 that is no list of embeddings, unretried, with the start of the body and a setup hint', async () => {
    const { server, embeddings } = await served();
    server.scriptEmbeddings({ raw: { contentType: 'text/html', body: '<!doctype html><title>My router</title>' } });
    const error = await caught(embeddings.embed(['x']));
    expect(error).toMatchObject({ code: 'model_error' });
    expect((error as Error).message).toMatch(/not a list of embeddings .*starting "<!doctype html><title>My router<\/title>".*OpenAI-compatible API/);
    expect(server.embeddingCalls).toBe(1);
  });

  it('gives up on a server that never answers after timeoutMs, each attempt', { timeout: 60_000 }, async () => {
    const { server, embeddings } = await served({ timeoutMs: 100, retry: { ...quickRetries, maxRetries: 1 } });
    server.scriptEmbeddings({ hang: true }, { hang: true });
    const error = await caught(embeddings.embed(['x']));
    expectModelError(error, /model openai:test-embed at .* failed: .*(timed out|100 ms)/i);
    expect(server.embeddingCalls).toBe(2);
  });

  it('stops at once, unretried and as an abort, when its signal aborts', async () => {
    const { server, embeddings } = await served();
    server.scriptEmbeddings({ hang: true });
    const controller = new AbortController();
    const pending = caught(embeddings.embed(['x'], { signal: controller.signal }));
    await expect.poll(() => server.embeddingCalls).toBe(1);
    controller.abort();
    const error = await pending;
    expect(error).not.toBeInstanceOf(TroupeError);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(server.embeddingCalls).toBe(1);
  });
});

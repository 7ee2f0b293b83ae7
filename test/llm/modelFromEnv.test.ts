import { afterEach, describe, expect, it } from 'vitest';
import { embeddingsFromEnv, modelFromEnv } from '../../src/llm/index.js';
import { ValidationError } from '../../src/errors.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { failureOf } from '../support/streamFailure.js';

// The model's limits from TROUPE_MODEL_* variables, seen at work against the local server. The
// idle timeout runs on the real clock here, set small; only the outcome is asserted.

let server: OpenAICompatibleServer;
afterEach(async () => {
  await server.close();
});

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

describe('modelFromEnv', () => {
  it('bounds the silence of a stream by TROUPE_MODEL_IDLE_TIMEOUT_MS', async () => {
    server = await startOpenAICompatibleServer();
    server.script({ stallAfter: 'stalled' });
    const model = modelFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL_IDLE_TIMEOUT_MS: '100' });
    expect(await failureOf(model.chat(request))).toMatchObject({ code: 'model_error', message: expect.stringContaining('(idleTimeoutMs)') as string });
  });

  it('bounds an attempt by TROUPE_MODEL_TIMEOUT_MS', async () => {
    server = await startOpenAICompatibleServer();
    server.script({ hang: true });
    const model = modelFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL_TIMEOUT_MS: '100' });
    expect(await failureOf(model.chat(request))).toMatchObject({ message: expect.stringContaining('no complete reply within 100 ms (timeoutMs)') as string });
  });

  it('bounds a reply by TROUPE_MODEL_MAX_REPLY_BYTES', async () => {
    server = await startOpenAICompatibleServer();
    server.script({ replyBytes: 100_000 });
    const model = modelFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL_MAX_REPLY_BYTES: '4096' });
    expect(await failureOf(model.chat(request))).toMatchObject({
      message: expect.stringContaining('the reply is larger than 4096 bytes (maxReplyBytes)') as string,
    });
  });

  it.each([
    ['TROUPE_MODEL_IDLE_TIMEOUT_MS', 'soon'],
    ['TROUPE_MODEL_TIMEOUT_MS', '0'],
    ['TROUPE_MODEL_TIMEOUT_MS', String(2 ** 31)],
    ['TROUPE_MODEL_MAX_REPLY_BYTES', '-5'],
  ])('refuses %s=%s, naming the variable', async (name, value) => {
    server = await startOpenAICompatibleServer();
    expect(() => modelFromEnv({ OPENAI_BASE_URL: server.baseURL, [name]: value })).toThrow(ValidationError);
    expect(() => modelFromEnv({ OPENAI_BASE_URL: server.baseURL, [name]: value })).toThrow(new RegExp(`^${name}: `));
  });
});

describe('embeddingsFromEnv', () => {
  it("uses the endpoint's /v1/embeddings when TROUPE_EMBEDDING_MODEL is set, and none of a local endpoint otherwise", async () => {
    server = await startOpenAICompatibleServer();
    expect(embeddingsFromEnv({ OPENAI_BASE_URL: server.baseURL })).toBeUndefined();
    expect(embeddingsFromEnv({})).toBeUndefined();
    const embedder = embeddingsFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_EMBEDDING_MODEL: 'nomic-embed-text', TROUPE_EMBEDDING_DIMENSION: '384' });
    expect(embedder).toMatchObject({ id: 'openai:nomic-embed-text', dimension: 384 });
    const [vector] = (await embedder?.embed(['the user likes blue'])) ?? [];
    expect(vector).toHaveLength(384);
    expect(server.embeddingCalls).toBe(1);
    // OpenAI itself (a key, no base URL) has text-embedding-3-small.
    expect(embeddingsFromEnv({ OPENAI_API_KEY: 'sk-test-key-000000' })).toMatchObject({ id: 'openai:text-embedding-3-small', dimension: 1536 });
  });

  it('refuses a model of unknown length without TROUPE_EMBEDDING_DIMENSION, and a malformed one, naming it', async () => {
    server = await startOpenAICompatibleServer();
    expect(() => embeddingsFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_EMBEDDING_MODEL: 'nomic-embed-text' })).toThrow(/dimension/);
    expect(() => embeddingsFromEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_EMBEDDING_MODEL: 'm', TROUPE_EMBEDDING_DIMENSION: 'wide' })).toThrow(
      /^TROUPE_EMBEDDING_DIMENSION: /,
    );
  });
});

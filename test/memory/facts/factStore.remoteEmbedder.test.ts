import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../../src/errors.js';
import { OpenAIEmbeddings } from '../../../src/llm/index.js';
import { startOpenAICompatibleServer } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';
import { loggedAboveDebug } from '../../support/hnswlibTests.js';

// L4 with embeddings from an OpenAI-compatible endpoint: the official `openai` package over real
// HTTP to the local server.

const { place, openStore, reopenEnv } = factHarness();
const later = cleanupAfterEach();

async function remote() {
  const server = await startOpenAICompatibleServer();
  later(() => server.close());
  const embedder = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'test-embed', dimension: 384, retry: false });
  return { server, embedder };
}

describe('L4 with OpenAIEmbeddings', () => {
  it('stores, finds and compresses facts with vectors from the server, one request for all merged texts', async () => {
    const { server, embedder } = await remote();
    const at = await place();
    const { store } = await openStore(at, { embedder, limits: { mergeThreshold: 1 } });
    const texts = ['The user prefers dark mode in the editor.', 'The user prefers dark mode in the code editor.', 'Alice lives in Lisbon.'];
    for (const text of texts) await store.add(fact(text));
    expect(server.embeddingCalls).toBe(3);
    expect((await store.search('where does Alice live', 1, { sessionId: 's1' }))[0]?.fact.text).toBe('Alice lives in Lisbon.');
    expect(await store.compress()).toMatchObject({ clusters: 1, merged: 1, after: 2 });
    expect(server.embeddingCalls).toBe(5);
    expect(store.list().map((stored) => stored.embedder)).toEqual(['openai:test-embed', 'openai:test-embed']);
    await store.close();
    const { store: reopened, logger } = await openStore(await reopenEnv(at), { embedder });
    expect(reopened.size).toBe(2);
    expect(loggedAboveDebug(logger)).toEqual([]);
    // Opening needs no embedding: the index was saved.
    expect(server.embeddingCalls).toBe(5);
  });

  it('stores nothing when the embedding call fails, and says why with model_error', async () => {
    const { server, embedder } = await remote();
    const { store } = await openStore(await place(), { embedder });
    server.scriptEmbeddings({ status: 500, message: 'the GPU fell over' });
    const error: unknown = await store.add(fact('a fact')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TroupeError);
    expect((error as TroupeError).code).toBe('model_error');
    expect((error as TroupeError).message).toMatch(/the GPU fell over/);
    expect(store.size).toBe(0);
    expect((await store.add(fact('a fact'))).fact.id).toBe('f0');
  });
});

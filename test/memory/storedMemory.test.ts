import { describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { StoredMemory } from '../../src/memory/index.js';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { fact, factHarness } from '../support/factStoreFixture.js';

// StoredMemory: an agent's memory read from the store without opening it, as a view of a
// terminated agent (and the CLI) reads it; its search embeds the query with the embedder that made
// the vectors when it is at hand, and ranks by shared words when it is not.

const { place, openStore } = factHarness();
const later = cleanupAfterEach();

const texts = ['Alice lives in Lisbon.', 'The user prefers dark mode in the editor.', 'Invoices are due on the first of the month.'];

async function storedWithRemoteEmbeddings() {
  const server = await startOpenAICompatibleServer();
  later(() => server.close());
  const embedder = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'test-embed', dimension: 384, retry: false });
  const at = await place();
  const { store } = await openStore(at, { embedder });
  for (const text of texts) await store.add(fact(text));
  await store.close();
  return { server, embedder, at };
}

describe('StoredMemory', () => {
  it('searches with the embedder that made the vectors, writing nothing and counting no retrieval', async () => {
    const { server, embedder, at } = await storedWithRemoteEmbeddings();
    const calls = server.embeddingCalls;
    const stored = StoredMemory.read({ agentId: 'root', db: at.db, logger: new MemoryLogger(), embedder });
    const hits = await stored.peek('where does Alice live', 2, { sessionId: 's1' });
    expect(hits.map((hit) => hit.fact.text)).toEqual(['Alice lives in Lisbon.', expect.any(String)]);
    expect(hits[0]?.similarity).toBeGreaterThan(hits[1]?.similarity ?? 1);
    // One embedding: the query's; the facts' vectors were read from the store.
    expect(server.embeddingCalls).toBe(calls + 1);
    expect(
      StoredMemory.read({ agentId: 'root', db: at.db, logger: new MemoryLogger(), embedder })
        .facts()
        .map((stored) => stored.retrievals),
    ).toEqual([0, 0, 0]);
  });

  it('without that embedder (a remote model the reader cannot reach), ranks the facts by shared words', async () => {
    const { server, at } = await storedWithRemoteEmbeddings();
    const calls = server.embeddingCalls;
    const stored = StoredMemory.read({ agentId: 'root', db: at.db, logger: new MemoryLogger(), embedder: null });
    const hits = await stored.peek('when are invoices due', 3);
    expect(hits.map((hit) => hit.fact.text)).toEqual(['Invoices are due on the first of the month.']);
    expect(server.embeddingCalls).toBe(calls);
  });

  it('of an agent that kept nothing: empty tiers, no facts, nothing found', async () => {
    const at = await place();
    const stored = StoredMemory.read({ agentId: 'nobody', db: at.db, logger: new MemoryLogger(), embedder: null });
    expect([stored.l1(), stored.l2(), stored.l3(), stored.facts(), await stored.peek('anything', 5)]).toEqual([[], [], [], [], []]);
    await expect(stored.peek(' ', 5)).rejects.toMatchObject({ code: 'invalid_input', field: 'text' });
  });
});

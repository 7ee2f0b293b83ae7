/**
 * A module for test/lazyLoading.test.ts: opens an agent's L4 in memory and searches it, then
 * (with FACTS=1 in the environment) adds a fact and searches again, so the test can see which
 * packages each step loads.
 */
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../src/memory/facts/factStore.js';

const store = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db: null, indexDir: null });
await store.search('anything', 5, { sessionId: null });
if (process.env['FACTS'] === '1') {
  await store.add({ text: 'The user prefers dark mode.', scope: 'agent', sessionId: null, importance: 0.5 });
  await store.search('dark mode', 5, { sessionId: null });
}
await store.close();

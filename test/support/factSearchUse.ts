/**
 * A program for test/memory/facts/factStore.exactSearch.test.ts: two agents' L4 in memory, sharing
 * one logger, each storing the same facts and searching them; prints (one JSON line) their hits
 * and what the logger heard at warn level, so the test can run it with and without hnswlib-node.
 */
import { MemoryLogger } from '../../src/logger.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../src/memory/facts/factStore.js';

const texts = ['The user prefers dark mode.', 'Alice lives in Lisbon.', 'The staging server listens on port 8080.', 'Bob likes hiking on weekends.'];
const queries = ['what theme does the user like', 'where does Alice live', 'which port does staging use'];

const logger = new MemoryLogger();
const hits: string[][] = [];
for (const agentId of ['poet', 'critic']) {
  const store = await FactStore.open({ agentId, embedder: new HashedNgramEmbedder(), db: null, indexDir: null, logger });
  for (const text of texts) await store.add({ text, scope: 'agent', sessionId: null, importance: 0.5 });
  for (const query of queries) hits.push((await store.search(query, 2, { sessionId: null })).map((hit) => `${hit.fact.text} ${hit.similarity.toFixed(4)}`));
  await store.close();
}
const warnings = logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
process.stdout.write(`${JSON.stringify({ hits, warnings })}\n`);

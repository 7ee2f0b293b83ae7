import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../../src/memory/facts/factStore.js';
import { factHarness } from '../../support/factStoreFixture.js';

// Issue 14: heap per agent with an empty memory stays ≤ 16 KB (10,000 agents). An agent with no
// facts allocates no index and loads nothing but its (empty) records.

const { place } = factHarness();
const agents = 10_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('L4 of an agent with no facts', () => {
  it(`costs under 16 KB of heap per agent over ${agents.toLocaleString('en')} agents, on a shared LMDB environment`, { timeout: 120_000 }, async () => {
    const at = await place();
    const embedder = new HashedNgramEmbedder();
    const limits = { maxFacts: 50_000 };
    const open = (i: number): Promise<FactStore> => FactStore.open({ agentId: `agent-${i}`, embedder, db: at.db, indexDir: at.indexDir, limits });
    // Warm up: modules, the sub-db handles, the parsed limits.
    await (await open(-1)).close();
    const before = heapUsed();
    const stores: FactStore[] = [];
    for (let i = 0; i < agents; i++) stores.push(await open(i));
    const perAgent = (heapUsed() - before) / agents;
    console.info(`L4 heap per empty agent: ${(perAgent / 1024).toFixed(2)} KB`);
    expect(perAgent).toBeLessThan(16 * 1024);
    expect(stores.every((store) => store.size === 0)).toBe(true);
    await Promise.all(stores.map((store) => store.close()));
  });
});

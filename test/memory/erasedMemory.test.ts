import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { eraseStoredMemories, entriesDbName } from '../../src/memory/index.js';
import { fact, factHarness } from '../support/factStoreFixture.js';
import { itWithHnswlib } from '../support/hnswlibTests.js';

// Erasing the memories of agents the organisation forgets: real LMDB and real hnswlib index files.

const { place, openStore } = factHarness();

describe('eraseStoredMemories', () => {
  itWithHnswlib("erases the named agents' entries, facts, vectors, bookkeeping and index files, and nothing of another agent's", async () => {
    const at = await place();
    for (const agentId of ['gone', 'kept', 'gone-too']) {
      const { store } = await openStore(at, { agentId });
      await store.add(fact(`${agentId} likes tea in the morning`, { sessionId: null }));
      await store.add(fact(`${agentId} lives near the harbour`, { sessionId: null }));
      // Closing saves the index file.
      await store.close();
    }
    const entries = at.db.openDB<unknown>({ name: entriesDbName });
    for (const agentId of ['gone', 'kept', 'gone-too']) for (const seq of [0, 1, 2]) await entries.put([agentId, seq], { anything: seq });
    const filesOf = async (agentId: string): Promise<string[]> => (await readdir(at.indexDir)).filter((file) => file.startsWith(`${agentId}.`));
    expect(await filesOf('gone')).not.toEqual([]);

    await eraseStoredMemories(at.db, at.indexDir, ['gone', 'gone-too']);

    const keysOf = (name: string): string[] => [...at.db.openDB({ name }).getKeys({})].map((key) => (Array.isArray(key) ? String(key[0]) : String(key)));
    for (const name of [entriesDbName, 'memory-facts', 'memory-vectors', 'memory-meta']) expect(new Set(keysOf(name)), name).toEqual(new Set(['kept']));
    expect(await filesOf('gone')).toEqual([]);
    expect(await filesOf('gone-too')).toEqual([]);
    expect(await filesOf('kept')).not.toEqual([]);

    // The kept agent's L4 opens from its index file, untouched.
    const { store, logger } = await openStore(at, { agentId: 'kept' });
    expect(store.size).toBe(2);
    expect(logger.entries.filter((entry) => entry.message === 'rebuilt the L4 index from the stored vectors')).toEqual([]);

    // Erasing again, or without an index dir, is no error.
    await eraseStoredMemories(at.db, at.indexDir, ['gone']);
    await eraseStoredMemories(at.db, join(at.dir, 'no-such-dir'), ['gone']);
  });
});

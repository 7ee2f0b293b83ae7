import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { ArtifactStore, artifactSubDbs, lmdbArtifactTable, memoryArtifactTable } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { orgHarness } from '../support/orgStoreFixture.js';
import { artifactStoreContract } from './artifactStore.contract.js';

const { tempDir, openTestStore } = orgHarness();

artifactStoreContract('maps in memory', () => Promise.resolve({ table: memoryArtifactTable() }));

artifactStoreContract('LMDB in the org store', async () => {
  const dir = await tempDir();
  const { store } = await openTestStore(dir);
  return { table: lmdbArtifactTable(store.environment) };
});

const limits = { maxArtifactBytes: 1_000, maxArtifactsPerTask: 5, maxArtifactStoreBytes: 100, artifactPreviewChars: 20 };

describe('the artifact store in a data dir', () => {
  it('keeps artifacts, their totals and which Tasks ended across a reopen', async () => {
    const dir = await tempDir();
    const first = await openTestStore(dir);
    const clock = new SimulatedClock(1_000);
    const store = new ArtifactStore(lmdbArtifactTable(first.store.environment), { limits, logger: new MemoryLogger(), clock });
    const ended = await store.put({ taskId: 't1', sessionId: 's1', name: 'a.bin', mediaType: 'application/octet-stream', content: new Uint8Array(60) });
    const kept = await store.put({ taskId: 't2', sessionId: 's1', name: 'b.txt', mediaType: 'text/plain', content: 'b'.repeat(30) });
    await store.taskEnded({ id: 't1', sessionId: 's1' });
    await store.idle();
    await first.store.close();

    const second = await openTestStore(dir);
    const reopened = new ArtifactStore(lmdbArtifactTable(second.store.environment), { limits, logger: new MemoryLogger(), clock });
    expect(reopened.totalBytes).toBe(90);
    expect(reopened.get(kept.id)?.content).toBe('b'.repeat(30));
    expect(reopened.list('s1').map((ref) => ref.id)).toEqual([ended.id, kept.id]);
    // The ended Task is still the one evicted.
    await reopened.put({ taskId: 't3', sessionId: 's1', name: 'c.txt', mediaType: 'text/plain', content: 'c'.repeat(20) });
    expect(reopened.get(ended.id)).toBeUndefined();
    expect(reopened.get(kept.id)).toBeDefined();
  });

  it('refuses a damaged record with an error naming its id, and loses nothing else', async () => {
    const dir = await tempDir();
    const { store: org } = await openTestStore(dir);
    const logger = new MemoryLogger();
    const store = new ArtifactStore(lmdbArtifactTable(org.environment), { limits, logger, clock: new SimulatedClock(0) });
    const damaged = await store.put({ taskId: 't1', sessionId: 's1', name: 'a.txt', mediaType: 'text/plain', content: 'aaa' });
    const fine = await store.put({ taskId: 't1', sessionId: 's1', name: 'b.txt', mediaType: 'text/plain', content: 'bbb' });
    await org.environment.openDB({ name: artifactSubDbs.records }).put(damaged.id, { v: 1, name: 42 });
    expect(() => store.get(damaged.id)).toThrow(`artifact ${damaged.id} is damaged in the store: id: Invalid input: expected string, received undefined`);
    expect(store.get(fine.id)?.content).toBe('bbb');
    expect(store.list('s1').map((ref) => ref.id)).toEqual([fine.id]);
    expect(logger.entries.filter((entry) => entry.level === 'error').map((entry) => entry.fields['artifactId'])).toEqual([damaged.id]);
    // Missing bytes are damage too, named the same way.
    await org.environment.openDB({ name: artifactSubDbs.content, encoding: 'binary' }).remove(fine.id);
    expect(() => store.get(fine.id)).toThrow(`artifact ${fine.id} is damaged in the store: its content is missing`);
  });
});

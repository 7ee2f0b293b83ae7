import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { type ArtifactLimits, ArtifactStore, type ArtifactTable, type TaskArtifact } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';

const defaults: ArtifactLimits = { maxArtifactBytes: 1_000, maxArtifactsPerTask: 5, maxArtifactStoreBytes: 10_000, artifactPreviewChars: 20 };

interface Opened {
  readonly store: ArtifactStore;
  readonly logger: MemoryLogger;
  readonly clock: SimulatedClock;
}

const text = (taskId: string, name: string, content: string): TaskArtifact => ({ taskId, sessionId: 's1', name, mediaType: 'text/plain', content });

/** A table to test on; `reopen` gives a new table on what the last one kept (absent: nothing outlives it). */
export interface TableUnderTest {
  readonly table: ArtifactTable;
  readonly reopen?: () => Promise<ArtifactTable>;
}

/** The artifact store's contract, run against each table: what it keeps, and each limit refused or evicted as documented. */
export function artifactStoreContract(name: string, makeTable: () => Promise<TableUnderTest>): void {
  const open = async (limits: Partial<ArtifactLimits> = {}, staleAfterMs?: number): Promise<Opened> => {
    const made = await makeTable();
    const logger = new MemoryLogger();
    const clock = new SimulatedClock(1_000);
    const store = new ArtifactStore(made.table, { limits: { ...defaults, ...limits }, logger, clock, ...(staleAfterMs === undefined ? {} : { staleAfterMs }) });
    return { store, logger, clock };
  };

  describe(`the artifact store on ${name}`, () => {
    it('keeps text as text and bytes as bytes, under ids, listed by session', async () => {
      const { store } = await open();
      const poem = await store.put(text('t1', 'poem.txt', 'rain on the roof'));
      const image = await store.put({ taskId: 't2', sessionId: 's1', name: 'dot.png', mediaType: 'image/png', content: new Uint8Array([137, 80, 78, 71]) });
      await store.put({ ...text('t3', 'other.txt', 'elsewhere'), sessionId: 's2' });
      expect(poem).toMatchObject({ name: 'poem.txt', mediaType: 'text/plain', size: 16, taskId: 't1', sessionId: 's1' });
      expect(poem.id).toMatch(/^[0-9a-f]{32}$/);
      expect(store.get(poem.id)?.content).toBe('rain on the roof');
      expect(store.get(image.id)?.content).toEqual(new Uint8Array([137, 80, 78, 71]));
      expect(store.list('s1').map((ref) => ref.name)).toEqual(['poem.txt', 'dot.png']);
      expect(store.get('0'.repeat(32))).toBeUndefined();
      expect(store.totalBytes).toBe(16 + 4 + 9);
    });

    it('stores the same artifact of one Task once (a tool call run again after a restart)', async () => {
      const { store } = await open();
      const first = await store.put(text('t1', 'a.txt', 'same'));
      const again = await store.put(text('t1', 'a.txt', 'same'));
      const elsewhere = await store.put(text('t2', 'a.txt', 'same'));
      expect(again.id).toBe(first.id);
      expect(elsewhere.id).not.toBe(first.id);
      expect(store.totalBytes).toBe(8);
    });
  });
  limitsContract(name, open);
}

/** Each limit, refused or evicted as documented. */
function limitsContract(name: string, open: (limits?: Partial<ArtifactLimits>, staleAfterMs?: number) => Promise<Opened>): void {
  describe(`the artifact store's limits on ${name}`, () => {
    it('refuses an artifact past maxArtifactBytes, naming the limit', async () => {
      const { store } = await open({ maxArtifactBytes: 10 });
      await expect(store.put(text('t1', 'big.txt', 'x'.repeat(11)))).rejects.toMatchObject({
        code: 'artifact_limit',
        message: 'artifact "big.txt" is 11 bytes, past the limit of 10 bytes per artifact (maxArtifactBytes); not stored',
      });
      expect(store.totalBytes).toBe(0);
      // Bytes, not characters: "é" is two.
      await expect(store.put(text('t1', 'e.txt', 'é'.repeat(6)))).rejects.toMatchObject({ code: 'artifact_limit' });
    });

    it('refuses an artifact past maxArtifactsPerTask, naming the Task and the limit; other Tasks go on', async () => {
      const { store } = await open({ maxArtifactsPerTask: 2 });
      await store.put(text('t1', 'a', '1'));
      await store.put(text('t1', 'b', '2'));
      await expect(store.put(text('t1', 'c', '3'))).rejects.toMatchObject({
        code: 'artifact_limit',
        message: 'task t1 already has 2 artifacts, the limit per Task (maxArtifactsPerTask); "c" not stored',
      });
      await expect(store.put(text('t2', 'c', '3'))).resolves.toMatchObject({ name: 'c' });
    });

    it("evicts the artifacts of the Tasks that ended first past maxArtifactStoreBytes, logging each, and never a running Task's", async () => {
      const { store, logger, clock } = await open({ maxArtifactStoreBytes: 30 });
      const running = await store.put(text('t0', 'running', 'r'.repeat(10)));
      const oldest = await store.put(text('t1', 'old', 'o'.repeat(10)));
      const newer = await store.put(text('t2', 'new', 'n'.repeat(10)));
      clock.advance(1);
      await store.taskEnded({ id: 't2', sessionId: 's1' });
      clock.advance(1);
      await store.taskEnded({ id: 't1', sessionId: 's1' });
      // 30 of 30 bytes: 10 more evict t2, the Task that ended first, and only it.
      const next = await store.put(text('t3', 'next', 'x'.repeat(10)));
      expect(store.get(newer.id)).toBeUndefined();
      expect(store.get(oldest.id)?.content).toBe('o'.repeat(10));
      expect(store.get(running.id)).toBeDefined();
      expect(store.get(next.id)).toBeDefined();
      expect(store.totalBytes).toBe(30);
      const evictions = logger.entries.filter(
        (entry) => entry.message === 'artifact store: evicted the artifacts of a terminated Task to make room (maxArtifactStoreBytes)',
      );
      expect(evictions).toHaveLength(1);
      expect(evictions[0]).toMatchObject({ level: 'info', fields: { taskId: 't2', artifacts: 1, bytes: 10 } });
      // t1 goes next; then nothing that ended is left, and the running Tasks' artifacts stay.
      await store.put(text('t3', 'more', 'm'.repeat(10)));
      expect(store.get(oldest.id)).toBeUndefined();
      await expect(store.put(text('t4', 'full', 'f'))).rejects.toMatchObject({
        code: 'artifact_limit',
        message:
          'the artifact store holds 30 of its 30 bytes (maxArtifactStoreBytes) and no terminated Task\'s artifacts are left to evict; "full" (1 bytes) not stored',
      });
      expect(store.list('s1').map((ref) => ref.name)).toEqual(['running', 'next', 'more']);
    });

    it('evicts, once no ended Task is left, the Tasks that never ended and are older than a turn may last, oldest first', async () => {
      const { store, logger, clock } = await open({ maxArtifactStoreBytes: 30 }, 60_000);
      const asked = await store.put(text('t1', 'asked', 'a'.repeat(10)));
      clock.advance(1_000);
      const cut = await store.put(text('t2', 'cut', 'c'.repeat(10)));
      clock.advance(58_999);
      const running = await store.put(text('t3', 'running', 'r'.repeat(10)));
      // t1's first artifact is 59,999 ms old: not yet past the 60 s a turn may last.
      await expect(store.put(text('t4', 'new', 'n'))).rejects.toMatchObject({ code: 'artifact_limit' });
      clock.advance(1);
      const next = await store.put(text('t4', 'new', 'n'.repeat(5)));
      expect(store.get(asked.id)).toBeUndefined();
      expect(store.get(cut.id)).toBeDefined();
      expect(store.get(running.id)).toBeDefined();
      expect(store.get(next.id)).toBeDefined();
      expect(logger.entries.filter((entry) => entry.message.includes('a Task that never ended'))).toEqual([
        expect.objectContaining({ level: 'info', fields: expect.objectContaining({ taskId: 't1', bytes: 10 }) as unknown }),
      ]);
      // An ended Task still goes before a stale one.
      await store.taskEnded({ id: 't4', sessionId: 's1' });
      clock.advance(1_000);
      await store.put(text('t5', 'last', 'l'.repeat(10)));
      expect(store.get(next.id)).toBeUndefined();
      expect(store.get(cut.id)).toBeDefined();
    });

    it('marks nothing for a Task without artifacts', async () => {
      const { store } = await open();
      await store.taskEnded({ id: 'nothing', sessionId: 's1' });
      expect(store.list('s1')).toEqual([]);
    });
  });
}

import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { type OrgStore, currentSchemaVersion } from '../../src/org/index.js';
import { maxDropsPerPrune, pruneEvery } from '../../src/org/store.js';
import { taskText } from '../../src/task/index.js';
import { makeTask, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** The texts of each session's logged Tasks, in order. */
function logOf(store: OrgStore, sessions: readonly string[]): string[][] {
  return sessions.map((session) => store.messages(session, {}).map((task) => taskText(task)));
}

/** `n` Tasks logged round robin over `sessions`, texted `#<i>` in the order they were logged. */
async function logRoundRobin(store: OrgStore, sessions: readonly string[], from: number, n: number): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = from; i < from + n; i++) writes.push(store.appendMessage(sessions[i % sessions.length] ?? '', makeTask({ text: `#${i}` })));
  await Promise.all(writes);
  await store.flushed();
}

/** What `logRoundRobin` leaves of Tasks `from`…`to - 1`, per session. */
function expected(sessions: readonly string[], from: number, to: number): string[][] {
  return sessions.map((_, s) =>
    Array.from({ length: to - from }, (_, i) => from + i)
      .filter((i) => i % sessions.length === s)
      .map((i) => `#${i}`),
  );
}

describe('org store: the message log and the inbox keep at most messageLogLimit Tasks', () => {
  it('drops the oldest Tasks across sessions, checked every pruneEvery appends, keeping each session in order', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { messageLogLimit: 100 });
    const sessions = ['s-a', 's-b', 's-c'];
    await logRoundRobin(store, sessions, 0, 2 * pruneEvery + 88);
    // The check at the 256th append left the newest 100; the one at the 512th, the newest 100 again; 88 came since.
    const first = 2 * pruneEvery - 100;
    expect(logOf(store, sessions)).toEqual(expected(sessions, first, 2 * pruneEvery + 88));
    // A session whose every Task went starts a new log when it is logged again.
    await store.appendMessage('s-gone', makeTask({ text: 'again' }));
    expect(store.messages('s-gone', {}).map((task) => taskText(task))).toEqual(['again']);
  });

  it("forgets a session's handed-off agent once the session's last logged Task goes, and only then", async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { messageLogLimit: 100 });
    await logRoundRobin(store, ['s-old'], 0, 10);
    await store.setSessionAgent('s-old', 'clerk-1');
    await store.setSessionAgent('s-new', 'clerk-2');
    // s-new keeps Tasks logged after every prune; s-old's 10 are the oldest, and go at the first check past the limit.
    await logRoundRobin(store, ['s-new'], 0, pruneEvery - 20);
    expect(store.sessionAgent('s-old')).toBe('clerk-1');
    await logRoundRobin(store, ['s-new'], pruneEvery - 20, pruneEvery + 20);
    await store.flushed();
    expect(store.messages('s-old', {})).toEqual([]);
    expect(store.sessionAgent('s-old')).toBeUndefined();
    expect(store.sessionAgent('s-new')).toBe('clerk-2');
  });

  it('keeps counting across a reopen: Tasks logged after it go in the same order, and the oldest still go first', async () => {
    const dir = await tempDir();
    const sessions = ['s-a', 's-b'];
    const before = await openTestStore(dir, { messageLogLimit: 50 });
    await logRoundRobin(before.store, sessions, 0, 200);
    await before.store.close();
    const { store } = await openTestStore(dir, { messageLogLimit: 50 });
    await logRoundRobin(store, sessions, 200, pruneEvery);
    // Nothing was dropped before the reopen (200 < pruneEvery); the check at this store's 256th append keeps the newest 50.
    expect(logOf(store, sessions)).toEqual(expected(sessions, 200 + pruneEvery - 50, 200 + pruneEvery));
  });

  it('drops at most maxDropsPerPrune Tasks in one check, and catches up at the next ones, when the limit was lowered on a big log', async () => {
    const dir = await tempDir();
    const sessions = ['s-a', 's-b', 's-c'];
    const big = maxDropsPerPrune + 300;
    const before = await openTestStore(dir);
    await logRoundRobin(before.store, sessions, 0, big);
    await before.store.close();
    const { store } = await openTestStore(dir, { messageLogLimit: 10 });
    await logRoundRobin(store, sessions, big, pruneEvery);
    expect(logOf(store, sessions).flat()).toHaveLength(big + pruneEvery - maxDropsPerPrune);
    await logRoundRobin(store, sessions, big + pruneEvery, pruneEvery);
    expect(logOf(store, sessions)).toEqual(expected(sessions, big + 2 * pruneEvery - 10, big + 2 * pruneEvery));
  });

  it("drops the oldest of the user's inbox the same way; a restart reads only the newest", async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { messageLogLimit: 10 });
    for (let i = 0; i < pruneEvery; i++) await store.appendInbox(makeTask({ text: `out ${i}`, from: 'poet-1', to: 'user' }));
    await store.flushed();
    expect(store.inbox().map((task) => taskText(task))).toEqual(Array.from({ length: 10 }, (_, i) => `out ${pruneEvery - 10 + i}`));
    expect(store.latestInbox(3).map((task) => taskText(task))).toEqual([`out ${pruneEvery - 3}`, `out ${pruneEvery - 2}`, `out ${pruneEvery - 1}`]);
  });

  it('migrates a store of schema 1: the Tasks it had logged get their place in the order, before any logged since, so retention reaches them', async () => {
    const dir = await tempDir();
    const old = await openTestStore(dir, { schemaVersion: 1, messageLogLimit: 1_000_000 });
    await logRoundRobin(old.store, ['s-a', 's-b'], 0, 20);
    await old.store.close();
    // As troupe 1 left it: the log without its order across sessions.
    const root = open({ path: dir, noSubdir: false, maxDbs: 30 });
    const order = root.openDB({ name: 'messageOrder' });
    for (const key of order.getKeys({})) order.removeSync(key);
    await root.close();

    const { store } = await openTestStore(dir, { messageLogLimit: 5 });
    await logRoundRobin(store, ['s-a', 's-b'], 20, pruneEvery);
    // The 20 older Tasks were ordered by the migration and went first, with the oldest of the new ones.
    expect(logOf(store, ['s-a', 's-b'])).toEqual(expected(['s-a', 's-b'], 20 + pruneEvery - 5, 20 + pruneEvery));
    expect(currentSchemaVersion).toBeGreaterThanOrEqual(2);
  });
});

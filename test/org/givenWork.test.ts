import { describe, expect, it } from 'vitest';
import { currentSchemaVersion } from '../../src/org/index.js';
import { pruneEvery } from '../../src/org/store.js';
import { replyTo } from '../../src/task/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { makeTask, openRaw, orgHarness } from '../support/orgStoreFixture.js';

// The store knows which work its agents were given, by agent and Task id, as long as the message
// log holds the Task: what lets a runtime refuse a replay of work it took before a restart.

const { tempDir, openTestStore } = orgHarness();

describe('org store: work given', () => {
  it('knows work the log holds by its agent and Task id, and nothing else, across a reopen', async () => {
    const dir = await tempDir();
    const before = await openTestStore(dir);
    const work = makeTask({ to: 'poet-1' });
    await before.store.appendMessage(work.id, work);
    // A status update of the same Task is no work of its own.
    const update = makeTask({ to: 'critic-1' });
    await before.store.appendMessage(update.id, replyTo(update, { status: 'working' }, new SimulatedClock()));
    await before.store.close();

    const { store } = await openTestStore(dir);
    expect(store.workGiven('poet-1', work.id)).toBe(true);
    expect(store.workGiven('critic-1', work.id)).toBe(false);
    expect(store.workGiven('poet-1', 'never-sent')).toBe(false);
    expect(store.workGiven('user', update.id)).toBe(false);
  });

  it('forgets work with its Task when retention drops it from the log', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { messageLogLimit: 10 });
    const tasks = Array.from({ length: pruneEvery }, (_, i) => makeTask({ text: `#${i}` }));
    await Promise.all(tasks.map((task) => store.appendMessage('s-a', task)));
    await store.flushed();
    const given = tasks.map((task) => store.workGiven(task.to, task.id));
    expect(given.filter(Boolean)).toHaveLength(10);
    expect(given.slice(-10)).toEqual(Array.from({ length: 10 }, () => true));
  });

  it('keeps the entry of work logged again after the copy retention drops', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { messageLogLimit: 10 });
    const twice = makeTask({ text: 'twice' });
    await store.appendMessage('s-a', twice);
    const rest = Array.from({ length: pruneEvery - 2 }, (_, i) => makeTask({ text: `#${i}` }));
    await Promise.all(rest.map((task) => store.appendMessage('s-a', task)));
    await store.appendMessage('s-a', twice);
    await store.flushed();
    expect(store.messages('s-a').filter((task) => task.id === twice.id)).toHaveLength(1);
    expect(store.workGiven(twice.to, twice.id)).toBe(true);
  });

  it('migrates a store of schema 4: the work its log holds is known after the upgrade', async () => {
    const dir = await tempDir();
    const old = await openTestStore(dir, { schemaVersion: 4 });
    const work = makeTask({ to: 'poet-1' });
    await old.store.appendMessage('s-a', work);
    await old.store.appendMessage('s-a', makeTask({ to: 'poet-1' }));
    await old.store.close();
    // As troupe at schema 4 left it: the log without the index.
    const root = openRaw(dir);
    const index = root.openDB({ name: 'givenWork' });
    for (const key of index.getKeys({})) index.removeSync(key);
    await root.close();

    const { store, logger } = await openTestStore(dir);
    expect(store.workGiven('poet-1', work.id)).toBe(true);
    expect(logger.entries).toContainEqual({ level: 'info', message: 'org store migrated', fields: { from: 4, to: 5 } });
    expect(currentSchemaVersion).toBe(5);
  });
});

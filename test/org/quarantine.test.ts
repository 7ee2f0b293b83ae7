import { describe, expect, it } from 'vitest';
import { makeTask, openRaw, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** Writes straight into a sub-db with the raw lmdb API, bypassing the store and its validation. */
async function tamper(
  dir: string,
  name: string,
  writes: (db: { put(key: unknown, value: unknown): void; putRaw(key: unknown, bytes: Uint8Array): void }) => void,
): Promise<void> {
  const root = openRaw(dir);
  const db = root.openDB({ name });
  const raw = root.openDB({ name, encoding: 'binary' });
  root.transactionSync(() => {
    writes({
      put: (key, value) => db.putSync(key as string, value),
      putRaw: (key, bytes) => raw.putSync(key as string, Buffer.from(bytes)),
    });
  });
  await root.close();
}

describe('org store: bad data on disk', () => {
  it('quarantines hand-corrupted records, reports them and loads the rest', async () => {
    const dir = await tempDir();
    const { store: first } = await openTestStore(dir);
    await first.createRole({ id: 'good', name: 'good', prompt: 'p', createdBy: 'user' });
    await first.createAgent({ id: 'a1', roleId: 'good', parentAgentId: null });
    await first.appendMessage('root', makeTask({ id: 'root' }));
    await first.appendInbox(makeTask({ id: 'in1' }));
    await first.close();

    // 0xc1 is never valid msgpack.
    const garbage = new Uint8Array([0xc1, 0xff, 0x00, 0x13]);
    await tamper(dir, 'roles', (db) => {
      db.put('no-prompt', { v: 1, id: 'no-prompt', name: 'x', createdBy: 'user', createdAt: 1 });
      db.put('future', { v: 2, id: 'future', name: 'x', prompt: 'p', createdBy: 'user', createdAt: 1 });
      db.putRaw('garbage', garbage);
    });
    await tamper(dir, 'agents', (db) =>
      db.put('a2', { v: 1, id: 'a2', roleId: 'good', parentAgentId: null, createdAt: 1, terminatedAt: null, status: 'asleep' }),
    );
    await tamper(dir, 'messages', (db) => db.put(['root', 1], { v: 1, task: { ...makeTask(), from: 'no spaces allowed' } }));
    await tamper(dir, 'inbox', (db) => db.put('not-a-seq', { v: 1, task: makeTask() }));
    await tamper(dir, 'mailboxes', (db) => db.put(['a1', 'someone-else'], { v: 1, seq: 0, task: makeTask({ id: 'w1' }) }));
    await tamper(dir, 'activeSkills', (db) => db.put(['a1', 's1'], { v: 1, agentId: 'a9', sessionId: 's1', skills: ['haiku'], at: 1 }));

    const { store, logger } = await openTestStore(dir);
    // The message log and the waiting Tasks are checked when read: the read skips the bad record and moves it aside.
    expect(store.quarantined().map((entry) => entry.db)).not.toContain('messages');
    expect(store.quarantined().map((entry) => entry.db)).not.toContain('mailboxes');
    expect(store.messages('root').map((task) => task.id)).toEqual(['root']);
    expect(store.waiting('a1')).toEqual([]);
    await store.flushed();
    const reasons = Object.fromEntries(store.quarantined().map((entry) => [`${entry.db}/${JSON.stringify(entry.key)}`, entry.reason]));
    // Each reason names the offending field, as zod reported it.
    const expected: Record<string, RegExp> = {
      'roles/"future"': /^v: /,
      'roles/"garbage"': /^undecodable: /,
      'roles/"no-prompt"': /^prompt: /,
      'agents/"a2"': /^status: /,
      'messages/["root",1]': /^task\.from: /,
      'inbox/"not-a-seq"': /^key: expected a sequence number$/,
      'mailboxes/["a1","someone-else"]': /^key: expected \[agentId, taskId\]/,
      'activeSkills/["a1","s1"]': /^key: expected \[agentId, sessionId\] of the record$/,
    };
    expect(Object.keys(reasons).sort()).toEqual(Object.keys(expected).sort());
    for (const [where, pattern] of Object.entries(expected)) expect(reasons[where], where).toMatch(pattern);
    const garbageEntry = store.quarantined().find((entry) => entry.key === 'garbage');
    expect(new Uint8Array(garbageEntry?.raw ?? [])).toEqual(garbage);
    const warnings = logger.entries.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(8);
    expect(warnings.every((entry) => entry.message === 'quarantined an invalid org record')).toBe(true);
    const noPrompt = warnings.find((entry) => entry.fields['key'] === '"no-prompt"');
    expect(noPrompt?.fields['db']).toBe('roles');
    expect(noPrompt?.fields['reason']).toMatch(/^prompt: /);

    // The rest loads, and the store keeps working.
    expect(store.roles().map((role) => role.id)).toEqual(['good']);
    expect(store.agents().map((agent) => agent.id)).toEqual(['a1']);
    expect(store.messages('root').map((task) => task.id)).toEqual(['root']);
    expect(store.inbox().map((task) => task.id)).toEqual(['in1']);
    await store.appendMessage('root', makeTask({ id: 'root' }));
    expect(store.messages('root')).toHaveLength(2);
    await store.close();

    // Quarantined records were moved, not copied: a third open finds nothing new.
    const { store: third, logger: thirdLogger } = await openTestStore(dir);
    expect(third.quarantined()).toHaveLength(8);
    expect(thirdLogger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it('skips an undecodable message record when its log is read, then moves it to the quarantine once', async () => {
    const dir = await tempDir();
    const { store: first } = await openTestStore(dir);
    await first.appendMessage('root', makeTask({ id: 'root' }));
    await first.appendMessage('root', makeTask({ id: 'root', text: 'second' }));
    await first.close();
    await tamper(dir, 'messages', (db) => db.putRaw(['root', 1], new Uint8Array([0xc1, 0xff])));

    const { store, logger } = await openTestStore(dir);
    expect(store.quarantined()).toEqual([]);
    // Read twice before the quarantine write lands: both skip it, and it is moved once.
    expect(store.messages('root').map((task) => task.parameters['text'])).toEqual(['task root']);
    expect(store.messages('root')).toHaveLength(1);
    await store.flushed();
    expect(store.quarantined().map((entry) => [entry.db, entry.key, entry.reason.split(':')[0]])).toEqual([['messages', ['root', 1], 'undecodable']]);
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.fields['key'])).toEqual(['["root",1]']);
    // The log goes on; the last slot, now free, is taken again (as after a quarantine on open).
    expect(await store.appendMessage('root', makeTask({ id: 'root', text: 'third' }))).toBe(1);
    expect(store.messages('root').map((task) => task.parameters['text'])).toEqual(['task root', 'third']);
  });

  it('opens without reading the waiting Tasks; a read skips the bad ones, keeps the order of the rest and moves them aside once', async () => {
    const dir = await tempDir();
    const { store: first } = await openTestStore(dir);
    await first.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' });
    await first.createAgent({ id: 'a1', roleId: 'r', parentAgentId: null });
    for (const id of ['w1', 'w2', 'w3', 'w4']) await first.addWaiting('a1', makeTask({ id }));
    await first.close();
    await tamper(dir, 'mailboxes', (db) => {
      db.putRaw(['a1', 'w2'], new Uint8Array([0xc1, 0xff]));
      db.put(['a1', 'w3'], { v: 1, seq: 2, task: { ...makeTask({ id: 'w3' }), status: 'completed' } });
      db.put(['a1', 'bad key', 'extra'], { v: 1, seq: 9, task: makeTask({ id: 'w9' }) });
    });

    const { store, logger } = await openTestStore(dir);
    // On open only the keys were checked.
    expect(store.quarantined().map((entry) => [entry.db, entry.key])).toEqual([['mailboxes', ['a1', 'bad key', 'extra']]]);
    expect(store.waitingCount('a1')).toBe(4);
    // Read twice before the quarantine writes land: both skip the bad records, each moved once.
    expect(store.waiting('a1').map((task) => task.id)).toEqual(['w1', 'w4']);
    expect(store.waiting('a1').map((task) => task.id)).toEqual(['w1', 'w4']);
    await store.flushed();
    const reasons = store.quarantined().map((entry) => [JSON.stringify(entry.key), entry.reason.split(':')[0]]);
    expect(reasons).toEqual([
      ['["a1","bad key","extra"]', 'key'],
      ['["a1","w2"]', 'undecodable'],
      ['["a1","w3"]', 'task.status'],
    ]);
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toHaveLength(3);
    expect(store.waitingCount('a1')).toBe(2);
    // The store goes on: a new waiting Task takes its place after the rest.
    await store.addWaiting('a1', makeTask({ id: 'w5' }));
    expect(store.waiting('a1').map((task) => task.id)).toEqual(['w1', 'w4', 'w5']);
  });

  it('quarantines an undecodable meta record and still opens', async () => {
    const dir = await tempDir();
    const { store: first } = await openTestStore(dir);
    await first.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' });
    await first.close();
    await tamper(dir, 'meta', (db) => db.putRaw('meta', new Uint8Array([0xc1])));
    const { store } = await openTestStore(dir);
    expect(store.quarantined().map((entry) => [entry.db, entry.key])).toEqual([['meta', 'meta']]);
    expect(store.roles().map((role) => role.id)).toEqual(['r']);
  });
});

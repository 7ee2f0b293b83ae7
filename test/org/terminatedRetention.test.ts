import { describe, expect, it } from 'vitest';
import type { OrgStore } from '../../src/org/index.js';
import { sessionConversationKey } from '../../src/org/keys.js';
import { openRaw, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** A `lead` with `n` workers under it, each with a conversation in one session. */
async function society(store: OrgStore, n: number): Promise<string[]> {
  await store.createRole({ id: 'role-1', name: 'worker', prompt: 'Work.', createdBy: 'user' });
  await store.createAgent({ id: 'lead', roleId: 'role-1', parentAgentId: null });
  const workers = Array.from({ length: n }, (_, i) => `worker-${i}`);
  for (const id of workers) {
    await store.createAgent({ id, roleId: 'role-1', parentAgentId: 'lead' });
    await store.appendConversation(sessionConversationKey(id, 's-1'), [{ role: 'user', content: `hello ${id}` }]);
  }
  return workers;
}

async function terminate(store: OrgStore, ids: readonly string[], from = 0): Promise<void> {
  for (const [i, agentId] of ids.entries()) await store.markTerminated({ agentId, terminatedBy: 'lead', reason: 'done', at: 10_000 + from + i });
}

describe('org store: terminated agents past terminatedAgentsKept are forgotten, oldest first', () => {
  it('names the oldest terminated agents past the limit, and forgets each with everything it owned', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { terminatedAgentsKept: 2 });
    const workers = await society(store, 5);
    await terminate(store, workers);
    expect(store.terminatedPastRetention(10).map(({ agentId }) => agentId)).toEqual(['worker-0', 'worker-1', 'worker-2']);
    // At most `max` at a time.
    const first = store.terminatedPastRetention(2);
    expect(first.map(({ agentId }) => agentId)).toEqual(['worker-0', 'worker-1']);

    expect(await store.forgetTerminated(first)).toBe(2);
    for (const gone of ['worker-0', 'worker-1']) {
      expect(store.agent(gone)).toBeUndefined();
      expect(store.conversation(sessionConversationKey(gone, 's-1'))).toEqual([]);
    }
    expect(store.terminations().map(({ agentId }) => agentId)).toEqual(['worker-2', 'worker-3', 'worker-4']);
    expect(store.children('lead')).toEqual(['worker-2', 'worker-3', 'worker-4']);
    expect(store.conversation(sessionConversationKey('worker-2', 's-1'))).toHaveLength(1);
    expect(store.terminatedPastRetention(10).map(({ agentId }) => agentId)).toEqual(['worker-2']);
  });

  it('keeps counting across a reopen: agents terminated after it come after those before it', async () => {
    const dir = await tempDir();
    const before = await openTestStore(dir, { terminatedAgentsKept: 1 });
    const workers = await society(before.store, 4);
    await terminate(before.store, workers.slice(0, 2));
    await before.store.close();
    const { store } = await openTestStore(dir, { terminatedAgentsKept: 1 });
    await terminate(store, workers.slice(2), 2);
    expect(store.terminatedPastRetention(10).map(({ agentId }) => agentId)).toEqual(['worker-0', 'worker-1', 'worker-2']);
  });

  it('refuses to forget a live agent, and forgets nothing of that call', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { terminatedAgentsKept: 0 });
    const workers = await society(store, 2);
    await terminate(store, workers.slice(0, 1));
    const past = store.terminatedPastRetention(1);
    expect(past.map(({ agentId }) => agentId)).toEqual(['worker-0']);
    await expect(store.forgetTerminated([...past, { order: 99, agentId: 'worker-1' }])).rejects.toMatchObject({ code: 'invalid_input' });
    expect(store.agent('worker-0')?.status).toBe('terminated');
    await expect(store.forgetTerminated([{ order: -1, agentId: 'worker-0' }])).rejects.toThrow('agents.[0].order');
  });

  it('an agent already forgotten costs only its place in the order', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { terminatedAgentsKept: 0 });
    await terminate(store, await society(store, 1));
    const past = store.terminatedPastRetention(1);
    expect(await store.forgetTerminated(past)).toBe(1);
    expect(await store.forgetTerminated(past)).toBe(0);
    expect(store.terminatedPastRetention(1)).toEqual([]);
  });

  it('migrates a store of schema 2: the agents it had terminated are ordered by when, before any terminated since', async () => {
    const dir = await tempDir();
    const old = await openTestStore(dir, { schemaVersion: 2 });
    const workers = await society(old.store, 4);
    // Terminated out of id order, so the migration's order is seen to follow `terminatedAt`.
    await old.store.markTerminated({ agentId: 'worker-1', terminatedBy: 'lead', reason: 'done', at: 10_000 });
    await old.store.markTerminated({ agentId: 'worker-0', terminatedBy: 'lead', reason: 'done', at: 10_001 });
    await old.store.close();
    // As troupe 0.1 at schema 2 left it: no order of terminations.
    const root = openRaw(dir);
    const order = root.openDB({ name: 'terminationOrder' });
    for (const key of order.getKeys({})) order.removeSync(key);
    await root.close();

    const { store } = await openTestStore(dir, { terminatedAgentsKept: 1 });
    await terminate(store, [workers[2] ?? ''], 5);
    expect(store.terminatedPastRetention(10).map(({ agentId }) => agentId)).toEqual(['worker-1', 'worker-0']);
  });

  it('a damaged record of the order is quarantined on open, and the newest are still kept', async () => {
    const dir = await tempDir();
    const before = await openTestStore(dir, { terminatedAgentsKept: 2 });
    const workers = await society(before.store, 4);
    await terminate(before.store, workers);
    await before.store.close();
    const root = openRaw(dir);
    // 0xc1 is never valid msgpack.
    await root.openDB({ name: 'terminationOrder', encoding: 'binary' }).put(1, Buffer.from([0xc1, 0xff]));
    await root.close();

    const { store } = await openTestStore(dir, { terminatedAgentsKept: 2 });
    expect(store.quarantined().map(({ db, key }) => [db, key])).toEqual([['terminationOrder', 1]]);
    // Three left in the order, one past the limit: worker-1's place went with the damage, so its records outlive the limit.
    const past = store.terminatedPastRetention(10);
    expect(past.map(({ agentId }) => agentId)).toEqual(['worker-0']);
    await store.forgetTerminated(past);
    expect(store.agents().map(({ id }) => id)).toEqual(['lead', 'worker-1', 'worker-2', 'worker-3']);
  });
});

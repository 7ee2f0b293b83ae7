import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import type { OrgStore, OrgStoreOptions } from '../../src/org/index.js';
import { sessionConversationKey } from '../../src/org/index.js';
import type { Journal } from '../../src/runtime/journal/journal.js';
import { storeJournal } from '../../src/runtime/journal/storeJournal.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import type { ChatMessage } from '../../src/task/index.js';
import { makeTask, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** A journal on a fresh store with one agent, `poet-1`, whose held records wait for `clock`. */
async function journalOnStore(
  limits = { delayMs: 10, maxWrites: 100 },
  storeOptions: Partial<OrgStoreOptions> = {},
): Promise<{ journal: Journal; store: OrgStore; clock: SimulatedClock; dir: string }> {
  const dir = await tempDir();
  const { store } = await openTestStore(dir, storeOptions);
  await store.createRole({ id: 'role-1', name: 'poet', prompt: 'Write poems.', createdBy: 'user' });
  await store.createAgent({ id: 'poet-1', roleId: 'role-1', parentAgentId: null });
  const clock = new SimulatedClock(1_000);
  return { journal: storeJournal(store, new MemoryLogger(), limits, clock, join(dir, 'memory-index')), store, clock, dir };
}

const step = (n: number): ChatMessage => ({ role: 'user', content: `step ${n}` });

describe('the store journal holds records nobody waits for and commits them together', () => {
  it('commits held records once commitDelayMs has passed', async () => {
    const { journal, store, clock } = await journalOnStore();
    journal.conversation('poet-1').appended([step(1)]);
    journal.conversation('poet-1').appended([step(2)]);
    await store.flushed();
    expect(store.conversation('poet-1')).toEqual([]);

    clock.advance(9);
    await store.flushed();
    expect(store.conversation('poet-1')).toEqual([]);
    clock.advance(1);
    await store.flushed();
    expect(store.conversation('poet-1')).toEqual([step(1), step(2)]);
  });

  it('commits everything held as soon as someone waits for durability, without waiting for the delay', async () => {
    const { journal, store } = await journalOnStore();
    journal.conversation('poet-1').appended([step(1)]);
    journal.waiting('poet-1', makeTask({ id: 'held' }));
    await journal.durable();
    expect(store.conversation('poet-1')).toEqual([step(1)]);
    expect(store.waiting('poet-1').map((task) => task.id)).toEqual(['held']);
  });

  it('keeps request order: a held record lands before a write someone waits for', async () => {
    const { journal, store } = await journalOnStore();
    journal.waiting('poet-1', makeTask({ id: 'first' }));
    await journal.userInput(makeTask({ id: 'second' }), () => undefined);
    expect(store.waiting('poet-1').map((task) => task.id)).toEqual(['first', 'second']);
    // The held removal runs before the acknowledged add that follows it, whatever their timing.
    journal.answered('poet-1', 'first');
    await journal.userInput(makeTask({ id: 'third' }), () => undefined);
    expect(store.waiting('poet-1').map((task) => task.id)).toEqual(['second', 'third']);
  });

  it("hands the user's Task over once its records are committed, readable, before it resolves; never when a record is refused", async () => {
    const { journal, store } = await journalOnStore();
    let seen: string[] | undefined;
    const accepted = journal.userInput(makeTask({ id: 'asked' }), () => {
      // Committed, so readable: a restart from here would hand it back.
      seen = store.waiting('poet-1').map((task) => task.id);
      return 'sent';
    });
    expect(seen).toBeUndefined();
    expect(await accepted).toBe('sent');
    expect(seen).toEqual(['asked']);
    let sentBad = false;
    const refused = journal.userInput({ ...makeTask({ id: 'bad' }), status: 'completed' }, () => (sentBad = true));
    await expect(refused).rejects.toThrow(/status/);
    expect(sentBad).toBe(false);
    expect(store.waiting('poet-1').map((task) => task.id)).toEqual(['asked']);
  });

  it('holds at most maxHeldWrites records: the last one commits them all', async () => {
    const { journal, store } = await journalOnStore({ delayMs: 10, maxWrites: 3 });
    const sink = journal.conversation('poet-1');
    sink.appended([step(1)]);
    sink.appended([step(2)]);
    await store.flushed();
    expect(store.conversation('poet-1')).toEqual([]);
    // Two records joining the held write reach the limit: everything held is issued.
    sink.appended([step(3), step(4)]);
    await store.flushed();
    expect(store.conversation('poet-1')).toEqual([step(1), step(2), step(3), step(4)]);
  });

  it("stages a conversation's appends held together as one write, in order, whatever is held between them", async () => {
    const staged: string[] = [];
    const { journal, store } = await journalOnStore({ delayMs: 10, maxWrites: 100 }, { writeFault: (label) => void staged.push(label) });
    // A ReAct step: the model's reply, the tool-call log entry, the tool's result; another session's step meanwhile.
    journal.conversation('poet-1/s1').appended([step(1)]);
    journal.waiting('poet-1', makeTask({ id: 'between' }));
    journal.conversation('poet-1/s2').appended([step(10)]);
    journal.conversation('poet-1/s1').appended([step(2), step(3)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([step(1), step(2), step(3)]);
    expect(store.conversation('poet-1/s2')).toEqual([step(10)]);
    expect(staged.filter((label) => label === 'appendConversation')).toHaveLength(2);
    // Once issued, the next append is a write of its own.
    journal.conversation('poet-1/s1').appended([step(4)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([step(1), step(2), step(3), step(4)]);
    expect(staged.filter((label) => label === 'appendConversation')).toHaveLength(3);
  });

  it('never joins an append to one held before a clear or a rewrite of its conversation', async () => {
    const { journal, store } = await journalOnStore();
    const sink = journal.conversation('poet-1/s1');
    sink.appended([step(1)]);
    sink.cleared();
    sink.appended([step(2)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([step(2)]);
    sink.appended([step(3)]);
    sink.replaced([step(4)]);
    sink.appended([step(5)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([step(4), step(5)]);
    sink.appended([step(6)]);
    journal.clearConversations('poet-1');
    sink.appended([step(7)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([step(7)]);
  });

  it('commits what is held when it closes', async () => {
    const { journal, dir } = await journalOnStore();
    journal.conversation('poet-1').appended([step(1)]);
    await journal.close();
    const { store: reopened } = await openTestStore(dir);
    expect(reopened.conversation('poet-1')).toEqual([step(1)]);
  });
});

describe('conversations kept through the journal', () => {
  it('a new conversation and the steps appended before its first commit are kept once each', async () => {
    const { journal, store } = await journalOnStore();
    const sink = journal.conversation('poet-1/s1');
    const system: ChatMessage = { role: 'system', content: 'You write poems.' };
    sink.appended([system]);
    sink.appended([step(1), step(2)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([system, step(1), step(2)]);
  });

  it('a compression followed by steps before its commit is kept as it is in memory', async () => {
    const { journal, store } = await journalOnStore();
    const sink = journal.conversation('poet-1/s1');
    sink.appended([step(1), step(2), step(3)]);
    await journal.durable();
    const summary: ChatMessage = { role: 'system', content: 'the story so far' };
    sink.replaced([summary, step(3)]);
    sink.appended([step(4)]);
    await journal.durable();
    expect(store.conversation('poet-1/s1')).toEqual([summary, step(3), step(4)]);
  });

  it("records a termination with the agent's held clear in one write, so a terminate waits for one commit", async () => {
    const staged: string[] = [];
    const { journal, store } = await journalOnStore({ delayMs: 10, maxWrites: 100 }, { writeFault: (label) => void staged.push(label) });
    journal.conversation(sessionConversationKey('poet-1', 's1')).appended([step(1)]);
    await journal.durable();
    staged.length = 0;
    // As a terminate does: the agent's release holds a clear, then the termination is recorded.
    journal.clearConversations('poet-1');
    await journal.terminated({ agentId: 'poet-1', terminatedBy: 'user', at: 2_000, reason: 'done', mode: 'drain' });
    expect(staged).toEqual(['markTerminated']);
    expect(store.conversation(sessionConversationKey('poet-1', 's1'))).toEqual([]);
    expect(store.agent('poet-1')?.status).toBe('terminated');
    // A clear not followed by a termination is written as before.
    await store.createAgent({ id: 'poet-2', roleId: 'role-1', parentAgentId: null });
    journal.conversation(sessionConversationKey('poet-2', 's1')).appended([step(2)]);
    journal.clearConversations('poet-2');
    await journal.durable();
    expect(staged.slice(2)).toEqual(['appendConversation', 'clearConversations']);
    expect(store.conversation(sessionConversationKey('poet-2', 's1'))).toEqual([]);
  });

  it("clearConversations forgets every session's conversation of the agent and one kept under its bare id, and nobody else's", async () => {
    const { journal, store } = await journalOnStore();
    await store.createAgent({ id: 'poet-10', roleId: 'role-1', parentAgentId: null });
    const keys = [sessionConversationKey('poet-1', 's1'), sessionConversationKey('poet-1', 's2'), 'poet-1', sessionConversationKey('poet-10', 's1'), 'poet-10'];
    for (const key of keys) journal.conversation(key).appended([step(1)]);
    journal.clearConversations('poet-1');
    await journal.durable();
    expect(keys.map((key) => store.conversation(key).length)).toEqual([0, 0, 0, 1, 1]);
  });
});

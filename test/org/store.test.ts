import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import { sessionConversationKey } from '../../src/org/index.js';
import { isParsedTask } from '../../src/task/index.js';
import { makeTask, orgHarness, snapshot } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof TroupeError ? error.code : String(error);
  }
}

describe('org store: round trip over real LMDB files', () => {
  it('keeps every record kind across close and reopen', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir);
    const role = await store.createRole({ id: 'role-1', name: 'poet', prompt: 'Write poems.', createdBy: 'user', tools: { deny: ['x'] } });
    await store.createAgent({ id: 'poet-1', roleId: 'role-1', parentAgentId: null });
    await store.createAgent({ id: 'poet-2', roleId: 'role-1', parentAgentId: 'poet-1' });
    const termination = await store.markTerminated({ agentId: 'poet-2', terminatedBy: 'poet-1', reason: 'done' });
    const tasks = [makeTask({ id: 'root' }), makeTask({ id: 'sub', parentId: 'root' }), makeTask({ id: 'root', text: 'reply' })];
    for (const task of tasks) await store.appendMessage('root', task);
    const steps = [
      { role: 'system' as const, content: 'You write poems.' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }] },
      { role: 'tool' as const, content: 'found', toolCallId: 'c1', name: 'search' },
    ];
    expect(await store.appendConversation('poet-1', steps)).toBe(3);
    await store.appendInbox(makeTask({ id: 'in1', from: 'poet-1', to: 'user' }));
    const before = snapshot(store, ['root']);
    await store.close();

    const { store: reopened, logger } = await openTestStore(dir);
    expect(snapshot(reopened, ['root'])).toEqual(before);
    expect(reopened.role('role-1')).toEqual(role);
    expect(reopened.agent('poet-2')).toMatchObject({ status: 'terminated', terminatedAt: termination.at, parentAgentId: 'poet-1' });
    expect(reopened.children('poet-1')).toEqual(['poet-2']);
    expect(reopened.terminations()).toEqual([termination]);
    expect(reopened.messages('root')).toEqual(tasks);
    expect(reopened.messages('root').every(isParsedTask)).toBe(true);
    expect(reopened.conversation('poet-1')).toEqual(steps);
    expect(reopened.inbox().map((task) => task.id)).toEqual(['in1']);
    expect(reopened.quarantined()).toEqual([]);
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it('keeps the Tasks an agent has not answered, in arrival order, across a reopen', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir);
    await store.createRole({ id: 'role-1', name: 'poet', prompt: 'p', createdBy: 'user' });
    await store.createAgent({ id: 'poet-1', roleId: 'role-1', parentAgentId: null });
    await store.createAgent({ id: 'poet-2', roleId: 'role-1', parentAgentId: null });
    // Ids chosen so that key order (by task id) differs from arrival order.
    const [b, a, c] = [makeTask({ id: 'b' }), makeTask({ id: 'a' }), makeTask({ id: 'c' })];
    await Promise.all([store.addWaiting('poet-1', b), store.addWaiting('poet-2', c), store.addWaiting('poet-1', a)]);
    // Adding one already waiting keeps its place; removing one not waiting is no error.
    await store.addWaiting('poet-1', b);
    await store.removeWaiting('poet-1', 'never-there');
    await store.close();

    const { store: reopened } = await openTestStore(dir);
    expect(reopened.waiting('poet-1').map((task) => task.id)).toEqual(['b', 'a']);
    expect(reopened.waiting('poet-1').every(isParsedTask)).toBe(true);
    await reopened.removeWaiting('poet-1', 'b');
    await reopened.addWaiting('poet-1', makeTask({ id: 'd' }));
    expect(reopened.waiting('poet-1').map((task) => task.id)).toEqual(['a', 'd']);
    // Terminating an agent drops what waited for it, in the same transaction.
    await reopened.markTerminated({ agentId: 'poet-2', terminatedBy: 'user', reason: 'done' });
    expect(reopened.waiting('poet-2')).toEqual([]);
    expect(await codeOf(reopened.addWaiting('poet-1', { ...makeTask({ id: 'e' }), status: 'completed' }))).toBe('invalid_input');
  });

  it("removes a terminated agent's conversations when asked, every session's, in the termination's transaction, and nobody else's", async () => {
    const staged: string[] = [];
    const { store } = await openTestStore(await tempDir(), { writeFault: (label) => void staged.push(label) });
    await store.createRole({ id: 'role-1', name: 'poet', prompt: 'p', createdBy: 'user' });
    await store.createAgent({ id: 'poet-1', roleId: 'role-1', parentAgentId: null });
    await store.createAgent({ id: 'poet-10', roleId: 'role-1', parentAgentId: null });
    const keys = [sessionConversationKey('poet-1', 's1'), sessionConversationKey('poet-1', 's2'), 'poet-1', sessionConversationKey('poet-10', 's1'), 'poet-10'];
    for (const key of keys) await store.appendConversation(key, [{ role: 'user', content: key }]);
    staged.length = 0;
    await store.markTerminated({ agentId: 'poet-1', terminatedBy: 'user', reason: 'done' }, { removeConversations: true });
    expect(staged).toEqual(['markTerminated']);
    expect(keys.map((key) => store.conversation(key).length)).toEqual([0, 0, 0, 1, 1]);
    // Without the option a terminated agent's conversations stay until it is forgotten.
    await store.markTerminated({ agentId: 'poet-10', terminatedBy: 'user', reason: 'done' });
    expect(keys.map((key) => store.conversation(key).length)).toEqual([0, 0, 0, 1, 1]);
  });

  it("keeps each session's active skills, least recently changed first, forgets an emptied one, and drops a terminated agent's", async () => {
    const dir = await tempDir();
    const { store: first } = await openTestStore(dir);
    await first.createRole({ id: 'role-1', name: 'poet', prompt: 'p', createdBy: 'user' });
    await first.createAgent({ id: 'poet-1', roleId: 'role-1', parentAgentId: null });
    await first.createAgent({ id: 'poet-10', roleId: 'role-1', parentAgentId: null });
    await first.setActiveSkills('poet-1', 's1', ['haiku', 'rhyme']);
    await first.setActiveSkills('poet-1', 's2', ['sonnet']);
    await first.setActiveSkills('poet-1', 's3', ['limerick']);
    await first.setActiveSkills('poet-1', 's3', []);
    await first.setActiveSkills('poet-10', 's1', ['haiku']);
    await expect(first.setActiveSkills('poet-1', 's4', ['x'.repeat(65)])).rejects.toThrow(/activeSkills\.skills\[0\]/);
    await first.close();
    const { store } = await openTestStore(dir);
    expect(store.activeSkills('poet-1')).toEqual([
      { sessionId: 's1', skills: ['haiku', 'rhyme'] },
      { sessionId: 's2', skills: ['sonnet'] },
    ]);
    await store.markTerminated({ agentId: 'poet-1', terminatedBy: 'user', reason: 'done' });
    expect(store.activeSkills('poet-1')).toEqual([]);
    expect(store.activeSkills('poet-10')).toEqual([{ sessionId: 's1', skills: ['haiku'] }]);
  });

  it('reads sequences in order and pages them', async () => {
    const { store } = await openTestStore(await tempDir());
    // 12 entries: numeric order must win over byte order (10 after 9, not after 1).
    for (let i = 0; i < 12; i++) {
      await store.appendMessage('root', makeTask({ id: `m${i}` }));
      await store.appendInbox(makeTask({ id: `i${i}` }));
    }
    await store.appendMessage('root-2', makeTask({ id: 'other' }));
    await store.appendConversation('a', [{ role: 'user', content: '0' }]);
    await store.appendConversation(
      'a',
      Array.from({ length: 11 }, (_, i) => ({ role: 'user' as const, content: `${i + 1}` })),
    );
    await store.appendConversation('a-b', [{ role: 'user', content: 'other agent' }]);
    const ids = (tasks: readonly { id: string }[]) => tasks.map((task) => task.id);
    expect(ids(store.messages('root'))).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
    expect(ids(store.messages('root', { offset: 9, limit: 2 }))).toEqual(['m9', 'm10']);
    expect(ids(store.messages('root', { offset: 11, limit: 5 }))).toEqual(['m11']);
    expect(ids(store.messages('root', { limit: 0 }))).toEqual([]);
    expect(ids(store.messages('root-2'))).toEqual(['other']);
    expect(ids(store.inbox({ offset: 10 }))).toEqual(['i10', 'i11']);
    expect(store.conversation('a').map((step) => step.content)).toEqual(Array.from({ length: 12 }, (_, i) => `${i}`));
    await store.clearConversation('a');
    expect(store.conversation('a')).toEqual([]);
    expect(store.conversation('a-b')).toHaveLength(1);
    expect(await store.appendConversation('a', [{ role: 'user', content: 'fresh' }])).toBe(1);
  });

  it('refuses inconsistent org changes with their own codes and writes nothing', async () => {
    const { store } = await openTestStore(await tempDir());
    await store.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' });
    await store.createAgent({ id: 'a', roleId: 'r', parentAgentId: null });
    expect(await codeOf(store.createRole({ id: 'r', name: 'again', prompt: 'p', createdBy: 'user' }))).toBe('invalid_input');
    expect(await codeOf(store.createAgent({ id: 'a', roleId: 'r', parentAgentId: null }))).toBe('invalid_input');
    expect(await codeOf(store.createAgent({ id: 'b', roleId: 'nope', parentAgentId: null }))).toBe('invalid_input');
    expect(await codeOf(store.createAgent({ id: 'b', roleId: 'r', parentAgentId: 'ghost' }))).toBe('unknown_agent');
    expect(await codeOf(store.createAgent({ id: 'bad id!', roleId: 'r', parentAgentId: null }))).toBe('invalid_input');
    expect(await codeOf(store.markTerminated({ agentId: 'ghost', terminatedBy: 'user', reason: '' }))).toBe('unknown_agent');
    await store.markTerminated({ agentId: 'a', terminatedBy: 'user', reason: 'bye' });
    expect(await codeOf(store.markTerminated({ agentId: 'a', terminatedBy: 'user', reason: 'again' }))).toBe('agent_terminated');
    expect(await codeOf(store.createAgent({ id: 'c', roleId: 'r', parentAgentId: 'a' }))).toBe('agent_terminated');
    expect(store.agents().map((agent) => agent.id)).toEqual(['a']);
    expect(store.children('a')).toEqual([]);
    expect(store.terminations()).toHaveLength(1);
  });

  it('updates an agent and moves its parent link in one write', async () => {
    const { store } = await openTestStore(await tempDir());
    await store.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' });
    await store.createRole({ id: 'r2', name: 'r2', prompt: 'p', createdBy: 'user' });
    for (const [id, parent] of [
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ] as const) {
      await store.createAgent({ id, roleId: 'r', parentAgentId: parent });
    }
    expect(await codeOf(store.updateAgent('a', { parentAgentId: 'c' }))).toBe('invalid_input');
    const moved = await store.updateAgent('c', { parentAgentId: 'a', roleId: 'r2' });
    expect(moved).toMatchObject({ parentAgentId: 'a', roleId: 'r2' });
    expect(store.children('a')).toEqual(['b', 'c']);
    expect(store.children('b')).toEqual([]);
  });

  it('rejects writes after close', async () => {
    const { store } = await openTestStore(await tempDir());
    await store.close();
    expect(await codeOf(store.appendInbox(makeTask()))).toBe('internal');
  });

  it('tells a write it is committed before it resolves as durable, once, and never a refused write', async () => {
    const { store } = await openTestStore(await tempDir());
    await store.createRole({ id: 'r', name: 'poet', prompt: 'p', createdBy: 'user' });
    await store.createAgent({ id: 'poet-1', roleId: 'r', parentAgentId: null });
    const events: string[] = [];
    const task = makeTask({ id: 'c1' });
    const appended = store.appendMessage('c1', task, () => events.push('message committed')).then(() => events.push('message durable'));
    const waiting = store.addWaiting('poet-1', task, () => events.push('waiting committed')).then(() => events.push('waiting durable'));
    // Already waiting: nothing to write, and still told once everything before it is committed.
    const again = store.addWaiting('poet-1', task, () => events.push('again committed')).then(() => events.push('again durable'));
    await Promise.all([appended, waiting, again]);
    expect(events.indexOf('message committed')).toBeLessThan(events.indexOf('message durable'));
    expect(events.indexOf('waiting committed')).toBeLessThan(events.indexOf('waiting durable'));
    expect(events.filter((event) => event.endsWith('committed')).sort()).toEqual(['again committed', 'message committed', 'waiting committed']);
    const refused = store.addWaiting('poet-1', { ...makeTask({ id: 'bad' }), status: 'completed' }, () => events.push('refused committed'));
    expect(await codeOf(refused)).toBe('invalid_input');
    await store.flushed();
    expect(events).not.toContain('refused committed');
    await store.close();
  });
});

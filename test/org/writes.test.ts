import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import { makeTask, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

describe('org store: failed writes', () => {
  it('retries a failed write once, rolling back the failed attempt', async () => {
    const failures: string[] = [];
    const { store, logger } = await openTestStore(await tempDir(), {
      // Throws once the agent and its parent link are staged, before they are issued: the retry must not see them.
      writeFault: (label, attempt) => {
        if (label === 'createAgent' && attempt === 1) {
          failures.push(label);
          throw new Error('disk hiccup');
        }
      },
    });
    await store.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' });
    await store.createAgent({ id: 'a', roleId: 'r', parentAgentId: null });
    await store.createAgent({ id: 'b', roleId: 'r', parentAgentId: 'a' });
    expect(failures).toEqual(['createAgent', 'createAgent']);
    expect(store.agents().map((agent) => agent.id)).toEqual(['a', 'b']);
    expect(store.children('a')).toEqual(['b']);
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual([
      'org store write failed; retrying once',
      'org store write failed; retrying once',
    ]);
  });

  it('surfaces a write that fails twice as an internal error, and stays usable', async () => {
    let broken = true;
    const { store, logger } = await openTestStore(await tempDir(), {
      writeFault: (label) => {
        if (broken && label === 'appendInbox') throw new Error('disk full');
      },
    });
    const failed = await store.appendInbox(makeTask({ id: 'lost' })).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TroupeError);
    expect((failed as TroupeError).code).toBe('internal');
    expect((failed as TroupeError).message).toContain('disk full');
    expect(logger.entries.some((entry) => entry.level === 'error' && entry.fields['write'] === 'appendInbox')).toBe(true);
    expect(store.inbox()).toEqual([]);
    broken = false;
    expect(await store.appendInbox(makeTask({ id: 'kept' }))).toBe(0);
    expect(store.inbox().map((task) => task.id)).toEqual(['kept']);
  });

  it('one failing write in a batch does not fail the others', async () => {
    const { store } = await openTestStore(await tempDir(), {
      writeFault: (label) => {
        if (label === 'createRole') throw new Error('only roles fail');
      },
    });
    const results = await Promise.allSettled([
      store.appendInbox(makeTask({ id: 'x1' })),
      store.createRole({ id: 'r', name: 'r', prompt: 'p', createdBy: 'user' }),
      store.appendInbox(makeTask({ id: 'x2' })),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(store.inbox().map((task) => task.id)).toEqual(['x1', 'x2']);
    expect(store.roles()).toEqual([]);
  });

  it('concurrent writers share commits and keep their order', async () => {
    const { store } = await openTestStore(await tempDir());
    const writers = Array.from({ length: 20 }, async (_, writer) => {
      for (let i = 0; i < 25; i++) {
        const task = makeTask({ id: `w${writer}-${i}` });
        await store.appendMessage(`root-${writer}`, task);
        // Readable as soon as the call returns.
        expect(store.messages(`root-${writer}`).at(-1)?.id).toBe(task.id);
      }
    });
    await Promise.all(writers);
    for (let writer = 0; writer < 20; writer++) {
      expect(store.messages(`root-${writer}`).map((task) => task.id)).toEqual(Array.from({ length: 25 }, (_, i) => `w${writer}-${i}`));
    }
  });

  it('rejects bad input before writing anything', async () => {
    const { store } = await openTestStore(await tempDir());
    const bad = { ...makeTask(), status: 'sleeping' } as unknown as ReturnType<typeof makeTask>;
    await expect(store.appendMessage('root', bad)).rejects.toMatchObject({ code: 'invalid_input', field: 'message.task.status' });
    await expect(
      store.appendConversation('a', [
        { role: 'user', content: 'ok' },
        { role: 'robot' as 'user', content: 'x' },
      ]),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'steps[1].role',
    });
    expect(store.messages('root')).toEqual([]);
    expect(store.conversation('a')).toEqual([]);
  });
});

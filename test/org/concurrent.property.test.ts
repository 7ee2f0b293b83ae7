import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import type { OrgStore } from '../../src/org/index.js';
import { makeTask, orgHarness, snapshot } from '../support/orgStoreFixture.js';

// Issue 12: writes are issued without waiting for earlier ones to commit, so a write staged
// while others are in flight must see them (sequence numbers, waiting Tasks, checked writes
// waiting for commits). Requested all at once, any sequence of writes must give the outcomes
// and the state of the same writes awaited one by one, gap-free sequences included.

const { tempDir, openTestStore } = orgHarness();

type Op =
  | { readonly kind: 'createRole'; readonly role: number }
  | { readonly kind: 'createAgent'; readonly agent: number; readonly parent: number | null }
  | { readonly kind: 'updateAgent'; readonly agent: number; readonly parent: number | null; readonly role: number }
  | { readonly kind: 'markTerminated'; readonly agent: number }
  | { readonly kind: 'appendMessage'; readonly root: number }
  | { readonly kind: 'appendConversation'; readonly agent: number; readonly steps: number }
  | { readonly kind: 'clearConversation'; readonly agent: number }
  | { readonly kind: 'addWaiting'; readonly agent: number; readonly task: number }
  | { readonly kind: 'removeWaiting'; readonly agent: number; readonly task: number }
  | { readonly kind: 'appendInbox' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('createRole' as const), role: fc.nat(1) }),
  fc.record({ kind: fc.constant('createAgent' as const), agent: fc.nat(3), parent: fc.option(fc.nat(3), { nil: null }) }),
  fc.record({ kind: fc.constant('updateAgent' as const), agent: fc.nat(3), parent: fc.option(fc.nat(3), { nil: null }), role: fc.nat(1) }),
  fc.record({ kind: fc.constant('markTerminated' as const), agent: fc.nat(3) }),
  fc.record({ kind: fc.constant('appendMessage' as const), root: fc.nat(1) }),
  fc.record({ kind: fc.constant('appendConversation' as const), agent: fc.nat(3), steps: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('clearConversation' as const), agent: fc.nat(3) }),
  fc.record({ kind: fc.constant('addWaiting' as const), agent: fc.nat(3), task: fc.nat(3) }),
  fc.record({ kind: fc.constant('removeWaiting' as const), agent: fc.nat(3), task: fc.nat(3) }),
  fc.constant({ kind: 'appendInbox' as const }),
);

/** Issues `op` without awaiting it; the promise gives 'ok:<result>' or the refusal's code. */
function issue(store: OrgStore, op: Op, index: number): Promise<string> {
  const call = (): Promise<unknown> => {
    switch (op.kind) {
      case 'createRole':
        return store.createRole({ id: `r${op.role}`, name: 'r', prompt: `p${index}`, createdBy: 'user' });
      case 'createAgent':
        return store.createAgent({ id: `a${op.agent}`, roleId: 'r0', parentAgentId: op.parent === null ? null : `a${op.parent}` }).then(() => null);
      case 'updateAgent':
        return store.updateAgent(`a${op.agent}`, { roleId: `r${op.role}`, parentAgentId: op.parent === null ? null : `a${op.parent}` });
      case 'markTerminated':
        return store.markTerminated({ agentId: `a${op.agent}`, terminatedBy: 'user', reason: `op ${index}` }).then(() => null);
      case 'appendMessage':
        return store.appendMessage(`root${op.root}`, makeTask({ id: `root${op.root}`, text: `op ${index}` }));
      case 'appendConversation':
        return store.appendConversation(
          `a${op.agent}`,
          Array.from({ length: op.steps }, (_, i) => ({ role: 'user' as const, content: `op ${index}.${i}` })),
        );
      case 'clearConversation':
        return store.clearConversation(`a${op.agent}`);
      case 'addWaiting':
        return store.addWaiting(`a${op.agent}`, makeTask({ id: `w${op.task}`, text: `op ${index}` }));
      case 'removeWaiting':
        return store.removeWaiting(`a${op.agent}`, `w${op.task}`);
      case 'appendInbox':
        return store.appendInbox(makeTask({ id: `i${index}` }));
      default:
        return op satisfies never;
    }
  };
  return call().then(
    (result) => `ok:${JSON.stringify(result ?? null)}`,
    (error: unknown) => (error instanceof TroupeError ? error.code : String(error)),
  );
}

/** Everything the ops can change, as plain data. */
function state(store: OrgStore): unknown {
  const agents = [0, 1, 2, 3].map((n) => `a${n}`);
  return {
    ...(snapshot(store, ['root0', 'root1']) as object),
    conversations: agents.map((id) => store.conversation(id)),
    waiting: agents.map((id) => store.waiting(id).map((task) => [task.id, task.parameters['text']])),
  };
}

describe('org store: writes in flight', () => {
  it('writes requested all at once give the outcomes and state of the same writes one by one', async () => {
    const seed = Number(process.env['FC_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`concurrent property: fast-check seed ${seed} (replay with FC_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), fc.nat(39), async (ops, split) => {
        const setup = [{ kind: 'createRole', role: 0 } as const];
        // One by one: the reference.
        const { store: serial } = await openTestStore(await tempDir());
        const expected: string[] = [];
        for (const [index, op] of [...setup, ...ops].entries()) expected.push(await issue(serial, op, index));
        const want = state(serial);
        // All at once, in two bursts (two event-loop turns, so two lmdb transactions in flight).
        const dir = await tempDir();
        const { store } = await openTestStore(dir);
        const all = [...setup, ...ops];
        const first = all.slice(0, split + 1).map((op, index) => issue(store, op, index));
        await new Promise((resolve) => setImmediate(resolve));
        const second = all.slice(split + 1).map((op, index) => issue(store, op, split + 1 + index));
        expect(await Promise.all([...first, ...second])).toEqual(expected);
        expect(state(store)).toEqual(want);
        await store.close();
        const { store: reopened } = await openTestStore(dir);
        expect(state(reopened)).toEqual(want);
        expect(reopened.quarantined()).toEqual([]);
        await reopened.close();
        await serial.close();
      }),
      { seed, numRuns: 40 },
    );
  });
});

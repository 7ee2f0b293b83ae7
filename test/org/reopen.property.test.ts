import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import type { OrgStore } from '../../src/org/index.js';
import { makeTask, orgHarness, snapshot } from '../support/orgStoreFixture.js';

// Property 13 of seed 004: a record is readable as soon as the call returns, and any sequence
// of org changes, closed and reopened, yields the same organisation.

const { tempDir, openTestStore } = orgHarness();

type Op =
  | { readonly kind: 'createRole'; readonly role: number }
  | { readonly kind: 'createAgent'; readonly agent: number; readonly role: number; readonly parent: number | null }
  | { readonly kind: 'markTerminated'; readonly agent: number; readonly by: number | null }
  | { readonly kind: 'appendMessage'; readonly root: number };

// Small id pools, so duplicates, unknown references and repeated terminations all happen.
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('createRole' as const), role: fc.nat(3) }),
  fc.record({
    kind: fc.constant('createAgent' as const),
    agent: fc.nat(7),
    role: fc.nat(3),
    parent: fc.option(fc.nat(7), { nil: null }),
  }),
  fc.record({ kind: fc.constant('markTerminated' as const), agent: fc.nat(7), by: fc.option(fc.nat(7), { nil: null }) }),
  fc.record({ kind: fc.constant('appendMessage' as const), root: fc.nat(2) }),
);

interface Model {
  readonly roles: Set<string>;
  readonly agents: Map<string, { parent: string | null; terminated: boolean }>;
  readonly messages: Map<string, string[]>;
}

/** What the store must answer: 'ok' or the refusal's code. */
function expected(model: Model, op: Op): string {
  switch (op.kind) {
    case 'createRole':
      return model.roles.has(`r${op.role}`) ? 'invalid_input' : 'ok';
    case 'createAgent': {
      if (model.agents.has(`a${op.agent}`) || !model.roles.has(`r${op.role}`)) return 'invalid_input';
      if (op.parent === null) return 'ok';
      const parent = model.agents.get(`a${op.parent}`);
      return parent === undefined ? 'unknown_agent' : parent.terminated ? 'agent_terminated' : 'ok';
    }
    case 'markTerminated': {
      const agent = model.agents.get(`a${op.agent}`);
      return agent === undefined ? 'unknown_agent' : agent.terminated ? 'agent_terminated' : 'ok';
    }
    case 'appendMessage':
      return 'ok';
    default:
      return op satisfies never;
  }
}

/** Applies `op` to the store, checks the outcome against the model, then that a read sees it. */
async function step(store: OrgStore, model: Model, op: Op, index: number): Promise<void> {
  const want = expected(model, op);
  let got = 'ok';
  try {
    switch (op.kind) {
      case 'createRole':
        await store.createRole({ id: `r${op.role}`, name: `role ${op.role}`, prompt: `prompt ${index}`, createdBy: 'user' });
        break;
      case 'createAgent':
        await store.createAgent({ id: `a${op.agent}`, roleId: `r${op.role}`, parentAgentId: op.parent === null ? null : `a${op.parent}` });
        break;
      case 'markTerminated':
        await store.markTerminated({ agentId: `a${op.agent}`, terminatedBy: op.by === null ? 'user' : `a${op.by}`, reason: `op ${index}` });
        break;
      case 'appendMessage':
        await store.appendMessage(`root${op.root}`, makeTask({ id: `root${op.root}`, text: `op ${index}` }));
        break;
      default:
        op satisfies never;
    }
  } catch (error) {
    got = error instanceof TroupeError ? error.code : String(error);
  }
  expect(got).toBe(want);
  if (got !== 'ok') return;
  // Update the model, and read the write back at once (no waiting, no reopen).
  switch (op.kind) {
    case 'createRole':
      model.roles.add(`r${op.role}`);
      expect(store.role(`r${op.role}`)?.prompt).toBe(`prompt ${index}`);
      break;
    case 'createAgent': {
      const parent = op.parent === null ? null : `a${op.parent}`;
      model.agents.set(`a${op.agent}`, { parent, terminated: false });
      expect(store.agent(`a${op.agent}`)).toMatchObject({ status: 'active', parentAgentId: parent });
      if (parent !== null) expect(store.children(parent)).toContain(`a${op.agent}`);
      break;
    }
    case 'markTerminated': {
      const agent = model.agents.get(`a${op.agent}`);
      if (agent !== undefined) agent.terminated = true;
      expect(store.agent(`a${op.agent}`)?.status).toBe('terminated');
      expect(store.terminations().find((t) => t.agentId === `a${op.agent}`)?.reason).toBe(`op ${index}`);
      break;
    }
    case 'appendMessage': {
      const log = model.messages.get(`root${op.root}`) ?? [];
      log.push(`op ${index}`);
      model.messages.set(`root${op.root}`, log);
      expect(store.messages(`root${op.root}`).map((task) => task.parameters['text'])).toEqual(log);
      break;
    }
    default:
      op satisfies never;
  }
}

describe('org store: property 13', () => {
  it('any sequence of org changes survives close and reopen unchanged', async () => {
    const seed = Number(process.env['FC_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`reopen property: fast-check seed ${seed} (replay with FC_SEED=${seed})`);
    const roots = ['root0', 'root1', 'root2'];
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        const dir = await tempDir();
        const { store } = await openTestStore(dir);
        const model: Model = { roles: new Set(), agents: new Map(), messages: new Map() };
        for (const [index, op] of ops.entries()) await step(store, model, op, index);
        const before = snapshot(store, roots);
        await store.close();
        const { store: reopened } = await openTestStore(dir);
        expect(snapshot(reopened, roots)).toEqual(before);
        expect(reopened.quarantined()).toEqual([]);
        expect(new Set(reopened.roles().map((role) => role.id))).toEqual(model.roles);
        expect(reopened.agents().map((agent) => [agent.id, agent.parentAgentId, agent.status === 'terminated'])).toEqual(
          [...model.agents].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, agent]) => [id, agent.parent, agent.terminated]),
        );
        await reopened.close();
      }),
      { seed, numRuns: 100 },
    );
  });
});

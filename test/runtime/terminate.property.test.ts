import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openOrgStore, sessionConversationKey } from '../../src/org/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import { Actions } from '../../src/task/index.js';
import { spawnTree, subtree, treeArb } from '../support/agentTree.js';
import { answers, duringSpawn, quietRuntime, recordBus, rejectedCode, tick, until } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';

// Properties 6 and 7 of seed 004: termination frees everything and is recorded, and only a parent
// may terminate (the user for top-level agents). Property 8 (a drain answers the queued work) is in
// drain.property.test.ts; here, what an abort does with it: everything is answered `canceled`.

function snapshot(rt: Runtime): string {
  return JSON.stringify({
    agents: rt.agents(),
    live: internalsOf(rt).society.liveIds().sort(),
    terminations: internalsOf(rt).society.terminations(),
  });
}

describe('terminate (properties 6–8)', () => {
  // 100 runs over real LMDB / HTTP: generous on a loaded machine.
  it(
    'property 6: a terminated agent and its descendants are gone, their conversations cleared, and each termination is recorded',
    { timeout: 180_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(treeArb, fc.nat(), fc.option(fc.string({ maxLength: 40 }), { nil: undefined }), async (choices, pick, reason) => {
          // On a data dir, so "recorded" means on disk (checked in the store after shutdown).
          const dataDir = await mkdtemp(join(tmpdir(), 'troupe-terminate-'));
          const { rt } = await quietRuntime({ steps: answers(40), dataDir });
          const nodes = await spawnTree(rt, choices);
          const ids = [...nodes.keys()];
          // Give every agent something to remember first, so "cleared" means something.
          // Each message starts a session of its own, named by the message's id.
          const sessions = new Map<string, string>();
          for (const id of ids) sessions.set(id, await rt.send(id, `hello ${id}`));
          await Promise.all([...sessions.values()].map((taskId) => rt.waitForAnswer(taskId, { timeoutMs: 5_000 })));
          const sessionOf = (id: string): string => sessions.get(id) ?? '';

          const target = ids[pick % ids.length] ?? 'root';
          const by = nodes.get(target)?.parent ?? 'user';
          const gone = subtree(nodes, target);
          const survivors = ids.filter((id) => !gone.includes(id));
          for (const id of ids) expect(internalsOf(rt).society.agent(id)?.context(sessionOf(id)).length).toBeGreaterThan(1);
          const seen = recordBus(rt);

          await rt.terminate(target, reason === undefined ? { by } : { by, reason });

          const expectedReason = reason ?? `terminated by ${by}`;
          for (const id of gone) {
            const view = rt.agent(id);
            expect(view?.status).toBe('terminated');
            expect(view?.state).toBe('terminated');
            expect(view?.terminatedAt).not.toBeNull();
            expect(internalsOf(rt).society.agent(id)).toBeUndefined();
            expect(internalsOf(rt).society.liveIds()).not.toContain(id);
            const records = internalsOf(rt)
              .society.terminations()
              .filter((t) => t.agentId === id);
            expect(records).toHaveLength(1);
            expect(records[0]).toMatchObject({ terminatedBy: id === target ? by : nodes.get(id)?.parent, reason: expectedReason });
            expect(seen.some((task) => task.action === Actions.terminated && task.from === id && task.to === (nodes.get(id)?.parent ?? 'runtime'))).toBe(true);
          }
          for (const id of survivors) {
            expect(rt.agent(id)?.status).toBe('active');
            expect(rt.agent(id)?.state).toBe('running.idle');
            expect(internalsOf(rt).society.agent(id)?.context(sessionOf(id)).length).toBeGreaterThan(1);
          }
          expect(internalsOf(rt).society.terminations()).toHaveLength(gone.length);
          await rt.shutdown();

          const store = await openOrgStore({ dir: dataDir });
          try {
            for (const id of gone) {
              expect(store.agent(id)?.status).toBe('terminated');
              expect(store.conversation(sessionConversationKey(id, sessionOf(id)))).toEqual([]);
              const stored = store.terminations().filter((t) => t.agentId === id);
              expect(stored).toHaveLength(1);
              expect(stored[0]).toMatchObject({ terminatedBy: id === target ? by : nodes.get(id)?.parent, reason: expectedReason });
            }
            for (const id of survivors) {
              expect(store.agent(id)?.status).toBe('active');
              expect(store.conversation(sessionConversationKey(id, sessionOf(id))).length).toBeGreaterThan(1);
            }
            expect(store.terminations()).toHaveLength(gone.length);
          } finally {
            await store.close();
            await rm(dataDir, { recursive: true, force: true });
          }
        }),
        { numRuns: 100 },
      );
    },
  );

  it('property 6 (racing): work aimed at a subtree while it is being terminated never leaves a live descendant behind', async () => {
    const raceArb = fc.array(fc.record({ kind: fc.constantFrom('spawn' as const, 'send' as const, 'terminate' as const), at: fc.nat() }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(treeArb, fc.nat(), raceArb, async (choices, pick, race) => {
        const { rt } = await quietRuntime({ steps: answers(20) });
        const nodes = await spawnTree(rt, choices);
        await until(() => rt.agents().every((agent) => agent.state === 'running.idle'), 'agents to start');
        const ids = [...nodes.keys()];
        const target = ids[pick % ids.length] ?? 'root';
        const gone = subtree(nodes, target);
        const seen = recordBus(rt);

        const terminating = rt.terminate(target, { by: nodes.get(target)?.parent ?? 'user' });
        // While it drains, the user aims more work at the dying subtree.
        // All of it is issued before the termination is awaited, so each call races it; every one is refused.
        const extra: Promise<string | null>[] = [];
        for (const step of race) {
          const at = gone[step.at % gone.length] ?? target;
          if (step.kind === 'spawn') {
            extra.push(rejectedCode(rt.spawn({ role: 'worker', parent: at })));
          } else if (step.kind === 'send') {
            // A draining agent has dropped its inbox, so accepting the Task would lose it.
            extra.push(rejectedCode(rt.send(at, 'too late?')));
          } else {
            extra.push(rejectedCode(rt.terminate(at, { by: nodes.get(at)?.parent ?? 'user' })));
          }
        }
        await terminating;
        const codes = await Promise.all(extra);
        expect(codes).toHaveLength(race.length);
        for (const code of codes) expect(code).toBe('agent_terminated');
        for (let i = 0; i < 3; i++) await tick();

        for (const record of rt.agents()) {
          const inSubtree = gone.includes(record.id) || (record.parentAgentId !== null && gone.includes(record.parentAgentId));
          if (inSubtree) expect(record).toMatchObject({ status: 'terminated', state: 'terminated' });
        }
        for (const id of gone)
          expect(
            internalsOf(rt)
              .society.terminations()
              .filter((t) => t.agentId === id),
          ).toHaveLength(1);
        // Nothing from the user reached the dying subtree after terminate began.
        expect(seen.filter((task) => task.from === 'user')).toEqual([]);
        await rt.shutdown();
      }),
      { numRuns: 100 },
    );
  });

  it('property 7: terminate succeeds iff the requester is the parent ("user" for top-level agents and their children); otherwise not_parent and nothing changes', async () => {
    const pairArb = fc.record({
      requester: fc.oneof(
        fc.constantFrom('user', 'root', 'runtime', 'stranger'),
        fc.nat().map((n) => `#${n}`),
      ),
      target: fc.oneof(
        fc.constant('root'),
        fc.nat().map((n) => `#${n}`),
      ),
    });
    await fc.assert(
      fc.asyncProperty(treeArb, fc.array(pairArb, { minLength: 1, maxLength: 12 }), async (choices, pairs) => {
        const { rt } = await quietRuntime();
        const nodes = await spawnTree(rt, choices);
        const ids = [...nodes.keys()];
        // `#n` names the n-th agent of the tree (root included), so pairs hit real agents often.
        const resolve = (name: string): string => (name.startsWith('#') ? (ids[Number(name.slice(1)) % ids.length] ?? 'root') : name);
        // Let every agent leave `spawning`, so a snapshot moves only when a termination happens.
        await until(() => rt.agents().every((agent) => agent.state === 'running.idle'), 'agents to start');
        const dead = new Set<string>();
        const seen = recordBus(rt);
        for (const pair of pairs) {
          const requester = resolve(pair.requester);
          const target = resolve(pair.target);
          const before = snapshot(rt);
          const published = seen.length;
          const code = await rejectedCode(rt.terminate(target, { by: requester }));
          const parent = nodes.get(target)?.parent ?? null;
          // The parent may; the user for a top-level agent, and for a top-level agent's child as its owner.
          const allowed = requester === (parent ?? 'user') || (requester === 'user' && parent !== null && (nodes.get(parent)?.parent ?? null) === null);
          if (dead.has(target)) {
            // Asked again by whoever may terminate it, it is done already; anyone else hears it is gone.
            expect(code).toBe(allowed ? null : 'agent_terminated');
            expect(snapshot(rt)).toBe(before);
          } else if (allowed) {
            expect(code).toBeNull();
            for (const id of subtree(nodes, target)) dead.add(id);
          } else {
            expect(code).toBe('not_parent');
          }
          if (code !== null) {
            expect(snapshot(rt)).toBe(before);
            expect(seen.length).toBe(published);
          }
          for (const id of ids) expect(rt.agent(id)?.status).toBe(dead.has(id) ? 'terminated' : 'active');
        }
        await rt.shutdown();
      }),
      { numRuns: 100 },
    );
  });

  it('abort: Tasks queued at an agent whose model hangs are all answered canceled on terminate, and no model call starts after it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.constantFrom('root', 'child', 'top'), fc.boolean(), async (k, where, early) => {
        const { rt, model } = await quietRuntime({ steps: [{ hang: true }, ...answers(8, 'too late')] });
        await rt.createRole({ name: 'worker', prompt: 'You do work.' });
        const spawnInput = where === 'child' ? { role: 'worker', parent: 'root' } : { role: 'worker' };
        const by = where === 'child' ? 'root' : 'user';
        // `early`: a fresh agent is terminated while still spawning, before any model call.
        const spawning = early && where !== 'root';
        const calls = spawning ? 0 : 1;
        const seen = recordBus(rt);

        let agentId = 'root';
        const sent: string[] = [];
        // One session: its Tasks wait behind the turn in progress rather than taking lanes of their own.
        const oneSession = { sessionId: 'hanging' };
        if (spawning) {
          // All of it while the agent is still spawning: its Tasks queue, and it is terminated there.
          const caught = await duringSpawn(rt, spawnInput, (id) => {
            const sends = [rt.send(id, 'first', oneSession), ...Array.from({ length: k }, (_, i) => rt.send(id, `queued ${i}`, oneSession))];
            expect(rt.agent(id)).toMatchObject({ state: 'spawning', queued: k + 1 });
            return { sends, terminating: rt.terminate(id, { by, mode: 'abort' }) };
          });
          agentId = caught.agentId;
          sent.push(...(await Promise.all(caught.result.sends)));
          await caught.result.terminating;
        } else {
          if (where !== 'root') agentId = await rt.spawn(spawnInput);
          sent.push(await rt.send(agentId, 'first', oneSession));
          await until(() => model.requests.length === 1, 'the first model call');
          for (let i = 0; i < k; i++) sent.push(await rt.send(agentId, `queued ${i}`, oneSession));
          expect(rt.agent(agentId)).toMatchObject({ state: 'running.turn.thinking', queued: k });
          await rt.terminate(agentId, { by, mode: 'abort' });
        }
        for (let i = 0; i < 5; i++) await tick();

        for (const taskId of sent) {
          const replies = seen.filter((task) => task.id === taskId && task.from === agentId);
          const final = replies.filter((task) => task.status !== 'working');
          expect(final).toHaveLength(1);
          expect(final[0]).toMatchObject({ status: 'canceled', to: 'user', error: { code: 'agent_terminated' } });
        }
        expect(model.requests).toHaveLength(calls);
        expect(rt.agent(agentId)?.state).toBe('terminated');
        await rt.shutdown();
        expect(model.requests).toHaveLength(calls);
      }),
      { numRuns: 60 },
    );
  });
});

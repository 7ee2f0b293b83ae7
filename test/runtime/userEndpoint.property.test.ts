import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/errors.js';
import { Actions, type Task, TaskStatusSchema, createTask } from '../../src/task/index.js';
import { SimulatedClock, sequentialIds } from '../../src/testing.js';
import { answers, quietRuntime, recordBus, rejectedCode, thrownCode, tick, validAgentId } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';

// Properties 1–3 of seed 004: the user endpoint validates what the user says, never lets the
// user talk to itself, and hands everything agents address to `user` to the inbox and every handler.

const validTaskId = /^[A-Za-z0-9_-]{1,128}$/;

/** The society every run starts from: root, two top-level workers, a child of root, one terminated worker. */
const live = ['root', 'worker-1', 'worker-2', 'worker-4'] as const;
const terminated = 'worker-3';

async function society(options: { rootTerminated: boolean }) {
  const setup = await quietRuntime({ steps: answers(400) });
  const { rt } = setup;
  await rt.createRole({ name: 'worker', prompt: 'You do work.' });
  await rt.spawn({ role: 'worker' });
  await rt.spawn({ role: 'worker' });
  await rt.spawn({ role: 'worker' });
  await rt.spawn({ role: 'worker', parent: 'root' });
  await rt.terminate(terminated, { by: 'user' });
  if (options.rootTerminated) await rt.terminate('root', { by: 'user' });
  return setup;
}

const targetArb = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('user', ...live, terminated, 'runtime', 'observer', '', ' root', 'root ', 'USER', 'a'.repeat(65)),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
);

const textArb = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('', ' ', '\n\t ', '\u00a0\u2003', 'hello', '  padded  '));

const taskIdArb = fc.option(fc.oneof(fc.stringMatching(validTaskId), fc.string({ maxLength: 6 })), { nil: undefined });

type UserAction = { kind: 'submit'; text: string } | { kind: 'send'; target: string; text: string; taskId: string | undefined };

const userActionArb: fc.Arbitrary<UserAction> = fc.oneof(
  fc.record({ kind: fc.constant('submit' as const), text: textArb }),
  fc.record({ kind: fc.constant('send' as const), target: targetArb, text: textArb, taskId: taskIdArb }),
);

/** What the runtime must do with an action, from the test's own model of the society. */
function expectedOutcome(action: UserAction, dead: ReadonlySet<string>): ErrorCode | 'accept' {
  if (action.kind === 'send' && action.taskId !== undefined && !validTaskId.test(action.taskId)) return 'invalid_input';
  const target = action.kind === 'submit' ? 'root' : action.target;
  if (!validAgentId.test(target)) return 'invalid_input';
  if (action.text.trim() === '') return 'invalid_input';
  if (target === 'user') return 'user_to_user';
  if (dead.has(target)) return 'agent_terminated';
  if (!(live as readonly string[]).includes(target)) return 'unknown_agent';
  return 'accept';
}

describe('user endpoint (properties 1–3)', () => {
  it('property 1: send/submit either forwards exactly one Task to the target or rejects with the right code and publishes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(userActionArb, { minLength: 1, maxLength: 12 }), async (rootTerminated, actions) => {
        const { rt } = await society({ rootTerminated });
        const dead = new Set(rootTerminated ? [terminated, 'root', 'worker-4'] : [terminated]);
        const seen = recordBus(rt);
        for (const action of actions) {
          const before = seen.length;
          let taskId: string | undefined;
          const code = await rejectedCode(
            (async () => {
              taskId =
                action.kind === 'submit'
                  ? await rt.submit(action.text)
                  : await rt.send(action.target, action.text, action.taskId === undefined ? {} : { taskId: action.taskId });
            })(),
          );
          const expected = expectedOutcome(action, dead);
          if (expected !== 'accept') {
            expect(code).toBe(expected);
            expect(seen.length).toBe(before);
          } else {
            expect(code).toBeNull();
            const target = action.kind === 'submit' ? 'root' : action.target;
            const parentId = action.kind === 'send' ? (action.taskId ?? null) : null;
            // The user's Task is the first thing the bus delivers, before any reaction to it.
            expect(seen[before]).toMatchObject({
              id: taskId,
              from: 'user',
              to: target,
              status: 'submitted',
              action: action.kind === 'submit' ? Actions.execute : Actions.message,
              parameters: { text: action.text.trim() },
              parentId,
            });
          }
          await tick();
        }
        await rt.shutdown();
      }),
      { numRuns: 100 },
    );
  });

  it('property 2: no Task from "user" to "user" ever reaches the bus; user Tasks go straight to their target', async () => {
    type Step = { kind: 'submit' | 'send' | 'raw'; target: string; text: string };
    const stepArb: fc.Arbitrary<Step> = fc.record({
      kind: fc.constantFrom('submit' as const, 'send' as const, 'raw' as const),
      target: fc.constantFrom('user', ...live, terminated, 'nobody'),
      text: fc.oneof(fc.constant('do it'), fc.string()),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 15 }), async (steps) => {
        const { rt } = await society({ rootTerminated: false });
        const seen = recordBus(rt);
        const ids = sequentialIds();
        const deps = { ids, clock: new SimulatedClock(1) };
        const accepted = new Map<string, string>();
        for (const step of steps) {
          const before = seen.length;
          let taskId: string | undefined;
          const code =
            step.kind === 'raw'
              ? // The endpoint's own door, bypassing Runtime's checks.
                thrownCode(() =>
                  internalsOf(rt).user.input(
                    createTask({ from: 'user', to: step.target, action: Actions.message, parameters: { text: step.text }, id: `raw-${ids.task()}` }, deps),
                  ),
                )
              : await rejectedCode(
                  (async () => {
                    taskId = step.kind === 'submit' ? await rt.submit(step.text) : await rt.send(step.target, step.text);
                  })(),
                );
          if (code === null) {
            if (step.kind === 'raw') accepted.set(seen[before]?.id ?? '', step.target);
            else accepted.set(taskId ?? '', step.kind === 'submit' ? 'root' : step.target);
          } else {
            expect(seen.length).toBe(before);
          }
          if (step.target === 'user' && step.kind !== 'submit') expect(code).not.toBeNull();
          await tick();
        }
        await rt.shutdown();
        expect(seen.filter((task) => task.from === 'user' && task.to === 'user')).toEqual([]);
        // Every Task the user sent is one the endpoint accepted, addressed where the user said.
        for (const task of seen.filter((t) => t.from === 'user')) {
          expect(accepted.get(task.id)).toBe(task.to);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('property 3: every Task agents address to "user" reaches the inbox in order and every output handler, even if one handler throws', async () => {
    const outgoingArb = fc.record({
      from: fc.constantFrom('root', 'worker-1', 'worker-2', 'worker-4'),
      action: fc.constantFrom(...Object.values(Actions), 'custom.note', 'report'),
      status: fc.constantFrom(...TaskStatusSchema.options),
      text: fc.string(),
      pause: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(outgoingArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (outgoing, handlerCount, throwing) => {
          const { rt, logger } = await society({ rootTerminated: false });
          const thrower = throwing === undefined ? -1 : throwing % handlerCount;
          const received = Array.from({ length: handlerCount }, () => [] as Task[]);
          received.forEach((log, i) => {
            rt.onOutput((task) => {
              log.push(task);
              if (i === thrower) throw new Error('handler exploded');
            });
          });
          const inboxBefore = rt.inbox().length;
          const ids = sequentialIds();
          const deps = { ids, clock: new SimulatedClock(1) };
          const published: Task[] = [];
          for (const item of outgoing) {
            const task = createTask(
              { from: item.from, to: 'user', action: item.action, status: item.status, parameters: { text: item.text }, id: `out-${ids.task()}` },
              deps,
            );
            published.push(task);
            rt.bus.publish(task);
            if (item.pause) await tick();
          }
          const ids$ = (tasks: readonly Task[]) => tasks.map((task) => task.id);
          expect(ids$(rt.inbox().slice(inboxBefore))).toEqual(ids$(published));
          for (const log of received) expect(ids$(log)).toEqual(ids$(published));
          expect(rt.inbox().slice(inboxBefore)).toEqual(published);
          const failures = logger.entries.filter((entry) => entry.message === 'output handler failed').length;
          expect(failures).toBe(thrower === -1 ? 0 : published.length);
          await rt.shutdown();
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('user endpoint inbox bound', () => {
  it('answers already in the bounded inbox are found at once; answers it dropped are not', async () => {
    const { rt } = await quietRuntime({ inboxLimit: 2 });
    const deps = { ids: sequentialIds(), clock: new SimulatedClock(0) };
    const replies = ['a1', 'a2', 'a3'].map((id) =>
      createTask({ id, from: 'root', to: 'user', action: Actions.message, status: 'completed', parameters: { text: id } }, deps),
    );
    for (const reply of replies) rt.bus.publish(reply);
    expect(rt.inbox().map((task) => task.id)).toEqual(['a2', 'a3']);
    expect(internalsOf(rt).user.answerTo('a3')).toBe(replies[2]);
    expect(internalsOf(rt).user.answerTo('a1')).toBeUndefined();
    await expect(rt.waitForAnswer('a2', { timeoutMs: 1_000 })).resolves.toBe(replies[1]);
    await rt.shutdown();
  });
});

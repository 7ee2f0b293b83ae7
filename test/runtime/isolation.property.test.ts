import fc from 'fast-check';
import { config as rxConfig } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { Actions } from '../../src/task/index.js';
import type { ScriptStep } from '../../src/testing.js';
import { quietRuntime, recordBus, until } from '../support/runtimeFixture.js';

// Property 12 of seed 004: one agent's failure never stops another. A model that throws fails
// that agent's turn (a `failed` reply and an `agent.error` notice to its parent) and nothing else.

afterEach(async () => {
  // RxJS reports a raw subscriber's error from a setTimeout(0): let the last ones land first.
  await new Promise((resolve) => setTimeout(resolve, 20));
  rxConfig.onUnhandledError = null;
});

/** Which agent a model request came from, read from its system prompt. */
function agentOf(request: { messages: readonly { role: string; content: string }[] }): string | undefined {
  const system = request.messages.find((message) => message.role === 'system');
  return /You are agent ([A-Za-z0-9_-]+) /.exec(system?.content ?? '')?.[1];
}

describe('failure isolation (property 12)', () => {
  it('agents whose model throws fail only their own turn, stay live and answer later; the others are unaffected', async () => {
    await fc.assert(
      fc.asyncProperty(
        // One flag per agent (root first): does its model throw on the first task?
        fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }),
        fc.boolean(),
        async (throws, faultySubscribers) => {
          const children = throws.length - 1;
          const ids = ['root', ...Array.from({ length: children }, (_, i) => `worker-${i + 1}`)];
          // Every agent's first model call starts synchronously when its Task arrives, so calls
          // are made in send order; the attribution is asserted below, not assumed.
          const firstRound: ScriptStep[] = ids.map((id, i) => (throws[i] ? { error: new Error('boom') } : { text: `answer from ${id}` }));
          const laterRound: ScriptStep[] = ids.map((id) => ({ text: `later from ${id}` }));
          const { rt, model, logger } = await quietRuntime({ steps: [...firstRound, ...laterRound] });
          await rt.createRole({ name: 'worker', prompt: 'You do work.' });
          for (let i = 0; i < children; i++) await rt.spawn({ role: 'worker', parent: 'root' });
          await until(() => rt.agents().every((agent) => agent.state === 'running.idle'), 'agents to start');

          const rxErrors: unknown[] = [];
          let raw: { unsubscribe(): void } | undefined;
          if (faultySubscribers) {
            rxConfig.onUnhandledError = (error) => rxErrors.push(error);
            rt.bus.subscribe(
              { pattern: '*' },
              () => {
                throw new Error('observer exploded');
              },
              'bad-observer',
            );
            rt.bus.subscribe({ to: ids[ids.length - 1] ?? 'root' }, () => Promise.reject(new Error('inbox exploded')), 'bad-inbox');
            // A raw RxJS subscriber: RxJS reports its error out of band and keeps delivering.
            raw = rt.bus.on('*').subscribe(() => {
              throw new Error('raw observer exploded');
            });
          }
          const seen = recordBus(rt);

          const first: string[] = [];
          for (const id of ids) first.push(await rt.send(id, `first task for ${id}`));
          const answers = await Promise.all(first.map((taskId) => rt.waitForAnswer(taskId, { timeoutMs: 5_000 })));
          expect(model.requests.map(agentOf)).toEqual(ids);

          ids.forEach((id, i) => {
            const answer = answers[i];
            const parent = id === 'root' ? 'runtime' : 'root';
            if (throws[i]) {
              // The retry layer gives up at once on an error it does not know to be transient: a model_error.
              expect(answer).toMatchObject({ from: id, status: 'failed', error: { code: 'model_error', message: 'model scripted failed: boom' } });
              const notices = seen.filter((task) => task.action === Actions.error && task.from === id);
              expect(notices).toHaveLength(1);
              expect(notices[0]).toMatchObject({ to: parent, parentId: first[i], parameters: { error: 'model scripted failed: boom' } });
            } else {
              expect(answer).toMatchObject({ from: id, status: 'completed', result: { text: `answer from ${id}` } });
              expect(seen.some((task) => task.action === Actions.error && task.from === id)).toBe(false);
            }
            expect(rt.agent(id)).toMatchObject({ status: 'active', state: 'running.idle' });
          });

          const later: string[] = [];
          for (const id of ids) later.push(await rt.send(id, `later task for ${id}`));
          const laterAnswers = await Promise.all(later.map((taskId) => rt.waitForAnswer(taskId, { timeoutMs: 5_000 })));
          ids.forEach((id, i) => {
            expect(laterAnswers[i]).toMatchObject({ from: id, status: 'completed', result: { text: `later from ${id}` } });
          });

          if (faultySubscribers) {
            const faults = logger.entries.filter((entry) => entry.message === 'bus subscriber failed');
            expect(faults.some((entry) => entry.fields['subscriber'] === 'bad-observer')).toBe(true);
            await until(() => logger.entries.some((entry) => entry.fields['subscriber'] === 'bad-inbox'), 'the rejected handler to be reported');
            await until(() => rxErrors.length > 0, 'RxJS to report the raw subscriber');
            raw?.unsubscribe();
          }
          const summary = await rt.shutdown();
          expect(summary.drained).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});

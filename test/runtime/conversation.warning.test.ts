import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/llm/index.js';
import { lengthWarning } from '../../src/runtime/agent/context/memoryContext.js';
import { Actions, type Task, createTask } from '../../src/task/index.js';
import { SimulatedClock, sequentialIds } from '../../src/testing.js';
import { quietRuntime, recordBus } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';

// Property 10 of seed 004 at the society: before each model call, an agent whose turn has more
// steps than maxConversationMessages is told so (the last message of that call's request, not a
// step of the turn), on every such call while it stays over, never otherwise; its parent gets an
// agent.warning Task when the turn goes over, not again until it has been under. What came before
// the turn is memory's, fitted to the budget: only the turn's own steps count.

const filler = (n: number): ChatMessage[] => Array.from({ length: n }, (_, i) => ({ role: 'user', content: `m${i}` }));

async function setup(maxConversationMessages: number) {
  const { rt, model } = await quietRuntime({ maxConversationMessages });
  await rt.createRole({ name: 'worker', prompt: 'You work.' });
  const child = await rt.spawn({ role: 'worker', parent: 'root' });
  const task = createTask(
    { from: 'root', to: child, action: Actions.execute, parameters: { text: 'work' } },
    { ids: sequentialIds(), clock: new SimulatedClock() },
  );
  const conversation = internalsOf(rt).society.agent(child)?.context(task.sessionId);
  if (conversation === undefined) throw new Error('no conversation');
  const warnIfLong = (): string | null | undefined => internalsOf(rt).society.agent(child)?.warnIfLong(task);
  return { rt, model, child, task, conversation, warnIfLong, seen: recordBus(rt) };
}

const warnings = (seen: readonly Task[]): Task[] => seen.filter((task) => task.action === Actions.warning);

describe('Agent.warnIfLong (property 10)', () => {
  it('is silent at the maximum; past it warns the model on every call and the parent once, until the turn is back under', async () => {
    const { rt, child, task, conversation, warnIfLong, seen } = await setup(4);
    conversation.append(...filler(4));
    expect(warnIfLong()).toBeNull();
    expect(warnings(seen)).toEqual([]);

    conversation.append(...filler(1));
    expect(warnIfLong()).toBe(lengthWarning(5, 4));
    expect(lengthWarning(5, 4)).toMatch(/5 messages \(max 4\).*compress_context/);
    // The warning is for this call's request only: the turn's steps are what they were.
    expect(conversation.length).toBe(5);
    expect(warnings(seen)).toEqual([
      expect.objectContaining({
        from: child,
        to: 'root',
        status: 'completed',
        parameters: { messages: 5, max: 4 },
        parentId: task.id,
        sessionId: task.sessionId,
      }),
    ]);

    // Still over at the next model call: the model is warned again, with the new count; the parent is not told twice.
    conversation.append(...filler(1));
    expect(warnIfLong()).toBe(lengthWarning(6, 4));
    expect(warnings(seen)).toHaveLength(1);

    // Compressed below the maximum (the turn's prompt, the summary, one recent step): silent again.
    internalsOf(rt).society.conversationOf(child, task.sessionId).compress('S', 1);
    expect(conversation.length).toBe(3);
    expect(warnIfLong()).toBeNull();
    expect(warnings(seen)).toHaveLength(1);

    // Over once more: the parent hears of it again.
    conversation.append(...filler(2));
    expect(warnIfLong()).toBe(lengthWarning(5, 4));
    expect(warnings(seen).map((warning) => warning.parameters)).toEqual([
      { messages: 5, max: 4 },
      { messages: 5, max: 4 },
    ]);
    await rt.shutdown();
  });

  it('addresses a top-level agent\'s warning to "runtime", and ignores an agent that is gone', async () => {
    const { rt } = await quietRuntime({ maxConversationMessages: 1 });
    const seen = recordBus(rt);
    const task = createTask(
      { from: 'user', to: 'root', action: Actions.execute, parameters: { text: 'go' } },
      { ids: sequentialIds(), clock: new SimulatedClock() },
    );
    internalsOf(rt)
      .society.agent('root')
      ?.context(task.sessionId)
      .append(...filler(2));
    expect(internalsOf(rt).society.agent('root')?.warnIfLong(task)).toBe(lengthWarning(2, 1));
    expect(warnings(seen)).toEqual([expect.objectContaining({ from: 'root', to: 'runtime', parentId: task.id, parameters: { messages: 2, max: 1 } })]);
    expect(internalsOf(rt).society.agent('nobody')).toBeUndefined();
    await rt.shutdown();
  });

  it('for any appends between model calls and any maximum, warns the model exactly at the calls where the length is over it, the parent at each crossing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 6 }), { minLength: 1, maxLength: 15 }), fc.integer({ min: 1, max: 30 }), async (batches, max) => {
        const { rt, conversation, warnIfLong, seen } = await setup(max);
        let length = conversation.length;
        let crossings = 0;
        let wasOver = false;
        for (const batch of batches) {
          conversation.append(...filler(batch));
          length += batch;
          const over = length > max;
          expect(warnIfLong()).toBe(over ? lengthWarning(length, max) : null);
          if (over && !wasOver) {
            crossings += 1;
            expect(warnings(seen).at(-1)?.parameters).toEqual({ messages: length, max });
          }
          wasOver = over;
          expect(conversation.length).toBe(length);
          expect(warnings(seen)).toHaveLength(crossings);
        }
        await rt.shutdown();
      }),
      { numRuns: 100 },
    );
  });
});

describe('turn length warning, end to end', () => {
  const call = { toolCalls: [{ name: 'create_plan', arguments: { steps: ['look'] } }] };

  it('a model call of an over-long turn sees the current warning last, and only that one; the parent gets agent.warning once', async () => {
    const { rt, model } = await quietRuntime({ maxConversationMessages: 3, steps: [call, call, call, { text: 'done' }] });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('work'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    // Steps before each call: 1 (the prompt), 3, 5, 7: a warning is not a step.
    expect(model.requests.map((request) => request.messages.at(-1))).toEqual([
      { role: 'user', content: expect.stringContaining('work') as unknown },
      expect.objectContaining({ role: 'tool' }),
      { role: 'system', content: lengthWarning(5, 3) },
      { role: 'system', content: lengthWarning(7, 3) },
    ]);
    const warned = (messages: readonly ChatMessage[]) => messages.filter((message) => message.role === 'system' && message.content.startsWith('[warning]'));
    expect(warned(model.requests[3]?.messages ?? [])).toHaveLength(1);
    expect(warnings(seen).map((task) => [task.to, task.parameters])).toEqual([['runtime', { messages: 5, max: 3 }]]);
    await rt.shutdown();
  });

  it('a long turn past the maximum leaves one warning in memory and in the log, and the next Task is taken', async () => {
    // Distinct arguments each step, so the repeat guard never fires.
    const steps = Array.from({ length: 60 }, (_, i) => ({ toolCalls: [{ name: 'create_plan', arguments: { steps: [`look ${i}`] } }] }));
    const { rt, model, logger } = await quietRuntime({ maxConversationMessages: 3, maxSteps: 100, steps: [...steps, { text: 'done' }, { text: 'next' }] });
    const seen = recordBus(rt);
    const sessionId = await rt.submit('work');
    expect((await rt.waitForAnswer(sessionId, { timeoutMs: 30_000 })).status).toBe('completed');
    expect(warnings(seen)).toHaveLength(1);
    expect(logger.entries.filter((entry) => entry.message === 'conversation over its maximum length')).toHaveLength(1);
    const memory = await rt.memory('root');
    expect(memory.counts.l1).toBeLessThan(10);
    expect(memory.counts.l3).toBe(0);
    // The last request holds one warning, however many calls were over.
    const last = model.requests[60]?.messages ?? [];
    expect(last.filter((message) => message.role === 'system' && message.content.startsWith('[warning]'))).toHaveLength(1);
    expect((await rt.waitForAnswer(await rt.submit('again', { sessionId }), { timeoutMs: 30_000 })).status).toBe('completed');
    await rt.shutdown();
  });

  it("counts each turn's steps: the next Task of the session starts at one, with the last exchange from memory", async () => {
    const { rt, model } = await quietRuntime({ maxConversationMessages: 3, steps: [call, call, { text: 'one' }, { text: 'two' }, { text: 'other' }] });
    const seen = recordBus(rt);
    const sessionId = await rt.submit('first');
    await rt.waitForAnswer(sessionId, { timeoutMs: 5_000 });
    expect(warnings(seen)).toHaveLength(1);
    await rt.waitForAnswer(await rt.submit('second', { sessionId }), { timeoutMs: 5_000 });
    const second = model.requests[3]?.messages.map((message) => message.content) ?? [];
    expect(second.join('\n')).toContain('first');
    expect(second.join('\n')).toContain('one');
    expect(second.at(-1)).toContain('second');
    await rt.waitForAnswer(await rt.submit('other'), { timeoutMs: 5_000 });
    expect(model.requests[4]?.messages.map((message) => message.content)).toEqual([expect.any(String), expect.stringContaining('other')]);
    expect(warnings(seen)).toHaveLength(1);
    await rt.shutdown();
  });
});

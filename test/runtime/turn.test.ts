import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Actions } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { quietRuntime, recordBus } from '../support/runtimeFixture.js';
import { delegationChain, scriptByRole } from '../support/scriptByRole.js';
import { internalsOf } from '../../src/runtime/internals.js';

describe('the ReAct turn', () => {
  it('moves <imp:X/> tags into metadata.importance and never shows them', async () => {
    const { rt } = await quietRuntime({ steps: [{ text: 'Rain falls softly.<imp:0.8/>' }] });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('a haiku'), { timeoutMs: 5_000 });
    expect(answer.result).toEqual({ text: 'Rain falls softly.' });
    expect(answer.metadata.importance).toBe(0.8);
    const shown = seen
      .filter((task) => task.action === Actions.thinking)
      .map((task) => task.parameters['text'] as string)
      .join('');
    expect(shown).toBe('Rain falls softly.');
    await rt.shutdown();
  });

  it('runs the tool calls of one reply in parallel and feeds results back in order', async () => {
    let waiting = 0;
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const rendezvous = defineTool({
      name: 'rendezvous',
      description: 'waits until its sibling call has started too',
      parameters: z.object({ name: z.string() }),
      execute: async ({ name }) => {
        if (++waiting === 2) release();
        await bothStarted;
        return jsonResult({ name });
      },
    });
    const { rt, model } = await quietRuntime({
      tools: [rendezvous],
      toolTimeoutMs: 2_000,
      steps: [
        {
          toolCalls: [
            { name: 'rendezvous', arguments: { name: 'a' } },
            { name: 'rendezvous', arguments: { name: 'b' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const answer = await rt.waitForAnswer(await rt.submit('meet'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    const results = model.requests[1]?.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results).toEqual(['{"name":"a"}', '{"name":"b"}']);
    await rt.shutdown();
  });

  it('refuses a call repeated maxRepeatedToolCalls times, tells the model why, and stops the turn if it goes on', async () => {
    let runs = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'looks something up',
      parameters: z.object({ q: z.string(), page: z.number() }),
      execute: async () => jsonResult({ hits: ++runs }),
    });
    const same = (args: string) => ({ toolCalls: [{ name: 'lookup', arguments: args }] });
    const { rt, model } = await quietRuntime({
      tools: [lookup],
      maxRepeatedToolCalls: 3,
      // The same call four times, with the keys in another order and other spacing.
      steps: [same('{"q":"x","page":1}'), same('{"page":1,"q":"x"}'), same('{ "q": "x", "page": 1 }'), same('{"q":"x","page":1}'), { text: 'unused' }],
    });
    const taskId = await rt.submit('find x');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(runs).toBe(2);
    const told = model.requests[3]?.messages.at(-1);
    expect(told).toMatchObject({ role: 'tool', content: expect.stringContaining('called lookup with these same arguments 3 times') as unknown });
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'repeat_guard' } });
    expect(model.remaining).toBe(1);
    // The conversation stays valid: every tool call has its result.
    const messages = internalsOf(rt).society.agent('root')?.context(taskId).messages ?? [];
    const callIds = messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : []));
    const resultIds = messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []));
    expect(resultIds).toEqual(callIds);
    expect(rt.agent('root')?.state).toBe('running.idle');
    await rt.shutdown();
  });

  it('runs a delegation chain root → manager → worker and back, terminating each child', async () => {
    const script = scriptByRole(delegationChain());
    const { rt } = await quietRuntime({ steps: Array.from({ length: 11 }, () => script.reply) });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('what is the number?'), { timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'The number is 42.' }, metadata: { importance: 0.9 } });
    expect(script.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
    const manager = rt.agents().find((agent) => agent.roleName === 'manager');
    const worker = rt.agents().find((agent) => agent.roleName === 'worker');
    expect(manager).toMatchObject({ parentAgentId: 'root', status: 'terminated' });
    expect(worker).toMatchObject({ parentAgentId: manager?.id, status: 'terminated' });
    const replies = seen.filter((task) => task.action === Actions.execute && task.status === 'completed').map((task) => `${task.from}→${task.to}`);
    expect(replies).toEqual([`${worker?.id}→${manager?.id}`, `${manager?.id}→root`, 'root→user']);
    await rt.shutdown();
  });
});

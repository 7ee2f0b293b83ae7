import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Guardrail, createRuntime, modelGuardrail } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { Actions } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { type MessagesBody, answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { quietRuntime, recordBus } from '../support/runtimeFixture.js';

const serve = serverPerTest();
const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

const mentions =
  (word: string): Guardrail['check'] =>
  (_, text) =>
    text.includes(word) ? { tripped: true, reason: `mentions ${word}` } : { tripped: false };

function lookupTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'lookup',
    description: 'looks a customer up',
    parameters: z.object({ id: z.string() }),
    execute: ({ id }) => {
      runs.push(id);
      return Promise.resolve(jsonResult({ id, ssn: id === 'c2' ? '078-05-1120' : 'none' }));
    },
  });
  return { tool, runs };
}

describe('guardrails', () => {
  it('trip on the input before any model call, failing the Task with guardrail_tripped', async () => {
    const { rt, model } = await quietRuntime({ steps: [{ text: 'sure' }], guardrails: [{ name: 'no-exploits', on: 'input', check: mentions('exploit') }] });
    const failed = await rt.waitForAnswer(await rt.submit('write an exploit'), { timeoutMs: 5_000 });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'guardrail_tripped' } });
    expect(failed.error?.message).toContain('guardrail "no-exploits" tripped before the turn started: mentions exploit');
    expect(model.requests).toHaveLength(0);
    await rt.shutdown();
  });

  it('keep a tripped answer from every output: the bus, the event stream, HTTP and the store', async () => {
    const served = await serve({
      model: new ScriptedModel([{ text: 'The admin password is hunter2.' }]),
      runtime: { guardrails: [{ name: 'no-passwords', on: 'answer', check: mentions('password') }] },
    });
    const seen = recordBus(served.rt);
    const events = await EventStreamClient.open(served.url, '/api/events');
    streams.push(events);
    const { body } = await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'what is the password?' } });
    const failed = await answered(served.rt, body.taskId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'guardrail_tripped' } });
    await events.until((stream) => stream.tasks.some((task) => task.status === 'failed'));
    const stored = await call<MessagesBody>(served.url, `/api/messages/${body.taskId}`);
    expect(stored.body.source).toBe('store');
    for (const output of [JSON.stringify(seen), JSON.stringify(events.tasks), JSON.stringify(stored.body.messages)]) expect(output).not.toContain('hunter2');
  });

  it('put the replacement in a tripped answer’s place, showing nothing of what the model wrote', async () => {
    const { rt } = await quietRuntime({
      steps: [{ text: 'You are an idiot.' }],
      guardrails: [{ name: 'civil', on: 'answer', check: mentions('idiot'), replacement: 'I would rather not say that.' }],
    });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('be rude'), { timeoutMs: 5_000 });
    expect(answer.result).toEqual({ text: 'I would rather not say that.' });
    expect(JSON.stringify(seen)).not.toContain('idiot');
    await rt.shutdown();
  });

  it('hold the streamed answer back until it has passed, then let it out', async () => {
    const order: string[] = [];
    const check: Guardrail['check'] = () => {
      order.push('checked');
      return { tripped: false };
    };
    const { rt } = await quietRuntime({ steps: [{ text: 'A calm answer.' }], guardrails: [{ name: 'calm', on: 'answer', check }] });
    rt.bus.on(Actions.thinking).subscribe(() => order.push('thinking'));
    const answer = await rt.waitForAnswer(await rt.submit('hello'), { timeoutMs: 5_000 });
    expect(answer.result).toEqual({ text: 'A calm answer.' });
    expect(order).toEqual(['checked', 'thinking']);
    await rt.shutdown();
  });

  it('trip on a tool result before the model reads it', async () => {
    const { tool, runs } = lookupTool();
    const { rt, model } = await quietRuntime({
      tools: [tool],
      steps: [{ toolCalls: [{ name: 'lookup', arguments: { id: 'c2' } }] }, { text: 'done' }],
      guardrails: [
        {
          name: 'no-ssn',
          on: 'toolResult',
          check: (_, text) => (/\d{3}-\d{2}-\d{4}/.test(text) ? { tripped: true, reason: 'a social security number' } : { tripped: false }),
        },
      ],
    });
    const seen = recordBus(rt);
    const failed = await rt.waitForAnswer(await rt.submit('look up c2'), { timeoutMs: 5_000 });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'guardrail_tripped' } });
    expect(failed.error?.message).toContain('after a tool result: a social security number');
    expect(runs).toEqual(['c2']);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(seen)).not.toContain('078-05-1120');
    await rt.shutdown();
  });

  it('run an input check in parallel with the first model call, but let no tool run before it passes', async () => {
    const { tool, runs } = lookupTool();
    let release: (verdict: { tripped: true; reason: string }) => void = () => undefined;
    const verdict = new Promise<{ tripped: true; reason: string }>((resolve) => (release = resolve));
    let modelCalled: () => void = () => undefined;
    const called = new Promise<void>((resolve) => (modelCalled = resolve));
    const model = new ScriptedModel([
      () => {
        modelCalled();
        return { toolCalls: [{ name: 'lookup', arguments: { id: 'c1' } }] };
      },
      { text: 'done' },
    ]);
    const runtime = await createRuntime({ model, tools: [tool], guardrails: [{ name: 'slow-check', on: 'input', parallel: true, check: () => verdict }] });
    const taskId = await runtime.submit('look up c1');
    await called;
    expect(runs).toEqual([]);
    release({ tripped: true, reason: 'not a customer request' });
    const failed = await runtime.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'guardrail_tripped' } });
    expect(failed.error?.message).toContain('not a customer request');
    expect(runs).toEqual([]);
    await runtime.shutdown();
  });

  it('ask a model for the verdict, tripping on a reply that is no verdict', async () => {
    const judge = new ScriptedModel([
      { text: '{"tripped": true, "reason": "an insult"}' },
      { text: 'I think it is fine' },
      { text: '```json\n{"tripped": false}\n```' },
    ]);
    const guardrail = modelGuardrail({ name: 'judge', on: 'answer', model: judge, instructions: 'Trip on insults.' });
    const { rt } = await quietRuntime({ steps: [{ text: 'one' }, { text: 'two' }, { text: 'three' }], guardrails: [guardrail] });
    const outcomes = [];
    for (const text of ['a', 'b', 'c']) outcomes.push(await rt.waitForAnswer(await rt.submit(text, { sessionId: `s-${text}` }), { timeoutMs: 5_000 }));
    expect(outcomes[0]?.error?.message).toContain('guardrail "judge" tripped before the answer left: an insult');
    expect(outcomes[1]?.error?.message).toContain("the guardrail's model gave no verdict");
    expect(outcomes[2]?.result).toEqual({ text: 'three' });
    expect(judge.requests[0]?.messages[1]).toEqual({ role: 'user', content: 'one' });
    await rt.shutdown();
  });

  it('are checked when the runtime is made', async () => {
    const check = mentions('x');
    await expect(quietRuntime({ guardrails: [{ name: 'p', on: 'answer', parallel: true, check }] })).rejects.toThrow(
      /only an input guardrail runs in parallel/,
    );
    await expect(quietRuntime({ guardrails: [{ name: 'r', on: 'input', replacement: 'no', check }] })).rejects.toThrow(/an input guardrail has no replacement/);
    await expect(quietRuntime({ guardrails: [{ name: 'n', on: 'output' as never, check }] })).rejects.toThrow(/guardrails/);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';
import type { Interceptor } from '../../src/index.js';
import { Actions } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { quietRuntime, recordBus } from '../support/runtimeFixture.js';

/** A tool that counts its runs and says what it was given. */
function countingTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.string() }),
    execute: ({ to }) => {
      runs.push(to);
      return Promise.resolve(jsonResult({ sent: to }));
    },
  });
  return { tool, runs };
}

const call = (to: string) => ({ toolCalls: [{ name: 'send_email', arguments: { to } }] });
const toolMessages = (request: { messages: readonly { role: string; content: string }[] } | undefined) =>
  (request?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);

describe('interceptors', () => {
  it('change what the model reads before each call, in order, each seeing what the one before let through', async () => {
    const seen: string[] = [];
    const redact: Interceptor = {
      name: 'redact',
      beforeModelCall: (_, request) => ({
        change: { messages: request.messages.map((message) => ({ ...message, content: message.content.replaceAll('4111-1111', '[card]') })) },
      }),
    };
    const witness: Interceptor = {
      name: 'witness',
      beforeModelCall: (_, request) => {
        seen.push(request.messages.at(-1)?.content ?? '');
      },
    };
    const { rt, model } = await quietRuntime({ steps: [{ text: 'noted' }], interceptors: [redact, witness] });
    const answer = await rt.waitForAnswer(await rt.submit('my card is 4111-1111'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    expect(model.requests[0]?.messages.at(-1)?.content).toContain('my card is [card]');
    expect(seen[0]).toContain('[card]');
    expect(seen[0]).not.toContain('4111-1111');
    await rt.shutdown();
  });

  it('stop a tool call before it runs: it never runs, and the model reads the reason', async () => {
    const { tool, runs } = countingTool();
    const guard: Interceptor = {
      name: 'no-outside-mail',
      beforeToolCall: (context, toolCall) =>
        toolCall.arguments.includes('@outside') ? { stop: `${context.call.name} to outside addresses is not allowed` } : undefined,
    };
    const { rt, model } = await quietRuntime({
      tools: [tool],
      steps: [call('eve@outside.example'), call('bob@inside.example'), { text: 'done' }],
      interceptors: [guard],
    });
    const answer = await rt.waitForAnswer(await rt.submit('mail them'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    expect(runs).toEqual(['bob@inside.example']);
    const refusal = toolMessages(model.requests[1])[0] ?? '';
    expect(JSON.parse(refusal)).toMatchObject({ code: 'interceptor_stopped' });
    expect(refusal).toContain('not run: interceptor \\"no-outside-mail\\" stopped this call: send_email to outside addresses is not allowed');
    await rt.shutdown();
  });

  it('change a call’s arguments within its schema, and stop one that changes its tool or breaks the schema', async () => {
    const { tool, runs } = countingTool();
    let round = 0;
    const rewrite: Interceptor = {
      name: 'rewrite',
      beforeToolCall: (_, toolCall) => {
        round++;
        if (round === 1) return { change: { ...toolCall, arguments: JSON.stringify({ to: 'audit@inside.example' }) } };
        if (round === 2) return { change: { ...toolCall, name: 'other_tool' } };
        return { change: { ...toolCall, arguments: 42 as unknown as string } };
      },
    };
    const { rt, model } = await quietRuntime({ tools: [tool], steps: [call('a@x'), call('b@x'), call('c@x'), { text: 'done' }], interceptors: [rewrite] });
    await rt.waitForAnswer(await rt.submit('mail'), { timeoutMs: 5_000 });
    expect(runs).toEqual(['audit@inside.example']);
    expect(toolMessages(model.requests[2])[1]).toContain("may change a call's arguments, not its id or tool");
    expect(toolMessages(model.requests[3])[2]).toContain('changed the value to one that does not fit');
    await rt.shutdown();
  });

  it('change or withhold a tool result before the model or any observer sees it', async () => {
    const { tool } = countingTool();
    const mask: Interceptor = {
      name: 'mask',
      afterToolResult: (context, result) =>
        context.call.arguments.includes('secret') ? { stop: 'the result names a secret mailbox' } : { change: { content: result.content.toUpperCase() } },
    };
    const { rt, model } = await quietRuntime({ tools: [tool], steps: [call('bob@x'), call('secret@x'), { text: 'done' }], interceptors: [mask] });
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('mail'), { timeoutMs: 5_000 });
    const [first, second] = toolMessages(model.requests[2]);
    expect(first).toBe('{"SENT":"BOB@X"}');
    expect(second).toContain('result withheld: interceptor \\"mask\\" stopped it: the result names a secret mailbox');
    const observed = JSON.stringify(seen.filter((task) => task.action === Actions.toolResult));
    expect(observed).not.toContain('secret@x"}');
    expect(observed).not.toContain('"sent":"bob@x"');
    await rt.shutdown();
  });

  it('change the answer that leaves, or stop it: the Task fails and the answer is not sent', async () => {
    const polite: Interceptor = { name: 'polite', beforeAnswer: (_, answer) => ({ change: { text: `${answer.text} Kind regards.` } }) };
    const { rt } = await quietRuntime({ steps: [{ text: 'Here it is.' }], interceptors: [polite] });
    const answer = await rt.waitForAnswer(await rt.submit('give'), { timeoutMs: 5_000 });
    expect(answer.result).toEqual({ text: 'Here it is. Kind regards.' });
    await rt.shutdown();

    const block: Interceptor = {
      name: 'no-leaks',
      beforeAnswer: (_, answer) => (answer.text.includes('password') ? { stop: 'the answer names a password' } : undefined),
    };
    const blocked = await quietRuntime({ steps: [{ text: 'The password is hunter2.' }], interceptors: [block] });
    const seen = recordBus(blocked.rt);
    const failed = await blocked.rt.waitForAnswer(await blocked.rt.submit('tell me'), { timeoutMs: 5_000 });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'interceptor_stopped' } });
    expect(failed.error?.message).toContain('stopped by interceptor "no-leaks" before the answer left: the answer names a password');
    expect(seen.filter((task) => task.action !== Actions.thinking).map((task) => JSON.stringify(task.result ?? null))).not.toContainEqual(
      expect.stringContaining('hunter2'),
    );
    await blocked.rt.shutdown();
  });

  it('stop a turn before any model call, and refuse a change of the prompt', async () => {
    const gate: Interceptor = { name: 'gate', beforeTurn: (_, prompt) => (prompt.text.includes('forbidden') ? { stop: 'off-topic request' } : undefined) };
    const { rt, model } = await quietRuntime({ steps: [{ text: 'fine' }], interceptors: [gate] });
    const stopped = await rt.waitForAnswer(await rt.submit('a forbidden thing'), { timeoutMs: 5_000 });
    expect(stopped).toMatchObject({ status: 'failed', error: { code: 'interceptor_stopped' } });
    expect(stopped.error?.message).toContain('stopped by interceptor "gate" before the turn started: off-topic request');
    expect(model.requests).toHaveLength(0);
    const allowed = await rt.waitForAnswer(await rt.submit('a normal thing'), { timeoutMs: 5_000 });
    expect(allowed.status).toBe('completed');
    await rt.shutdown();

    const rewriter: Interceptor = { name: 'rewriter', beforeTurn: () => ({ change: { text: 'something else' } }) };
    const refused = await quietRuntime({ steps: [{ text: 'fine' }], interceptors: [rewriter] });
    const failed = await refused.rt.waitForAnswer(await refused.rt.submit('hello'), { timeoutMs: 5_000 });
    expect(failed.error?.message).toContain('not change its prompt');
    await refused.rt.shutdown();
  });

  it('stop the work when a hook throws, returns no verdict or outlives its time', async () => {
    const cases: readonly [Interceptor, string][] = [
      [{ name: 'thrower', afterModelReply: () => Promise.reject(new Error('policy service down')) }, 'afterModelReply failed: policy service down'],
      [{ name: 'confused', afterModelReply: () => 'yes' as never }, 'afterModelReply returned no verdict'],
      [
        {
          name: 'slow',
          timeoutMs: 20,
          afterModelReply: (context) => new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(undefined))),
        },
        'afterModelReply took longer than 20 ms',
      ],
    ];
    for (const [interceptor, reason] of cases) {
      const { rt } = await quietRuntime({ steps: [{ text: 'an answer' }], interceptors: [interceptor] });
      const failed = await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 5_000 });
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'interceptor_stopped' } });
      expect(failed.error?.message).toContain(`interceptor "${interceptor.name}" after a model reply: ${reason}`);
      await rt.shutdown();
    }
  });

  it('run only in the turns of the roles they name', async () => {
    const ran: string[] = [];
    const onlyWorkers: Interceptor = { name: 'workers-only', roles: ['worker'], beforeModelCall: (context) => void ran.push(context.role) };
    const { rt } = await quietRuntime({ steps: [{ text: 'root answer' }, { text: 'worker answer' }], interceptors: [onlyWorkers] });
    await rt.waitForAnswer(await rt.submit('hi'), { timeoutMs: 5_000 });
    expect(ran).toEqual([]);
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    await rt.waitForAnswer(await rt.send(worker, 'work'), { timeoutMs: 5_000 });
    expect(ran).toEqual(['worker']);
    await rt.shutdown();
  });

  it('are checked when the runtime is made, each problem named', async () => {
    const hook = { beforeAnswer: () => undefined };
    await expect(quietRuntime({ interceptors: [{ name: '', ...hook }] })).rejects.toThrow(ValidationError);
    await expect(
      quietRuntime({
        interceptors: [
          { name: 'a', ...hook },
          { name: 'a', ...hook },
        ],
      }),
    ).rejects.toThrow(/interceptors: names must differ/);
    await expect(quietRuntime({ interceptors: [{ name: 'idle' }] })).rejects.toThrow(/has no hook/);
    await expect(quietRuntime({ interceptors: [{ name: 'slow', timeoutMs: 0, ...hook }] })).rejects.toThrow(/timeoutMs/);
    const many = Array.from({ length: 33 }, (_, i) => ({ name: `i${i}`, ...hook }));
    await expect(quietRuntime({ interceptors: many })).rejects.toThrow(/interceptors/);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TroupeError } from '../../src/errors.js';
import { type Approval, type Task, awaitsApproval } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import { quietRuntime, recordBus, until } from '../support/runtimeFixture.js';

/** A tool that needs approval and counts what it ran with. */
function guardedTool(needsApproval: boolean | ((args: { to: string }) => boolean) = true) {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.email() }),
    needsApproval,
    execute: ({ to }) => {
      runs.push(to);
      return Promise.resolve(jsonResult({ sent: to }));
    },
  });
  return { tool, runs };
}

/** A tool that needs nothing and counts its runs. */
function plainTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'lookup',
    description: 'looks something up',
    parameters: z.object({ q: z.string() }),
    execute: ({ q }) => {
      runs.push(q);
      return Promise.resolve(jsonResult({ found: q }));
    },
  });
  return { tool, runs };
}

const mail = (to: string) => ({ name: 'send_email', arguments: { to } });
const toolMessages = (request: { messages: readonly { role: string; content: string }[] } | undefined) =>
  (request?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);

async function waitingApproval(rt: Runtime, count = 1): Promise<Approval[]> {
  await until(() => rt.approvals().length >= count, `${count} approval(s) waiting`);
  return rt.approvals();
}

async function refusal(promise: Promise<unknown>): Promise<TroupeError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TroupeError);
  return error as TroupeError;
}

describe('approvals', () => {
  it('pause the lane in its own state, the Task input-required naming the call, until a person approves; then the call runs once', async () => {
    const { tool, runs } = guardedTool();
    const { rt } = await quietRuntime({ tools: [tool], steps: [{ toolCalls: [mail('ana@example.com')] }, { text: 'sent' }] });
    const seen = recordBus(rt);
    const taskId = await rt.submit('mail ana');
    const [approval] = await waitingApproval(rt);
    await until(() => seen.some((task) => task.id === taskId && awaitsApproval(task)), 'the Task input-required');
    const paused = seen.find((task) => task.id === taskId && awaitsApproval(task)) as Task;
    expect(paused).toMatchObject({ status: 'input-required', to: 'user', metadata: { approvals: [{ id: approval?.id, tool: 'send_email' }] } });
    expect(rt.agent('root')?.state).toBe('running.awaitingApproval');
    expect(approval).toMatchObject({ tool: 'send_email', reason: 'tool', status: 'pending', arguments: JSON.stringify({ to: 'ana@example.com' }) });
    expect(approval?.annotations).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
    expect(runs).toEqual([]);

    const decided = await rt.decide(approval?.id ?? '', { action: 'approve', digest: approval?.digest, by: 'ops' });
    expect(decided).toMatchObject({ status: 'approved', decision: { action: 'approve', by: 'ops' } });
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'sent' } });
    expect(runs).toEqual(['ana@example.com']);
    // The pause did not end the user's wait: the Task went on, working again, to its answer.
    const statuses = seen.filter((task) => task.id === taskId && task.from === 'root').map((task) => task.status);
    expect(statuses).toEqual(['working', 'input-required', 'working', 'completed']);
    expect(rt.approvals()).toEqual([]);
    await rt.shutdown();
  });

  it('a rejected call never runs, and the model reads the person’s message', async () => {
    const { tool, runs } = guardedTool();
    const { rt, model } = await quietRuntime({ tools: [tool], steps: [{ toolCalls: [mail('eve@example.com')] }, { text: 'not sent' }] });
    const taskId = await rt.submit('mail eve');
    const [approval] = await waitingApproval(rt);
    await rt.decide(approval?.id ?? '', { action: 'reject', message: 'eve left the company' });
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 5_000 })).toMatchObject({ status: 'completed' });
    expect(runs).toEqual([]);
    const result = toolMessages(model.requests[1])[0] ?? '';
    expect(JSON.parse(result)).toMatchObject({ code: 'approval_rejected' });
    expect(result).toContain('a person rejected it: eve left the company');
    await rt.shutdown();
  });

  it('an edit runs the call with the person’s arguments, checked against the tool’s schema; the model is told', async () => {
    const { tool, runs } = guardedTool();
    const { rt, model } = await quietRuntime({ tools: [tool], steps: [{ toolCalls: [mail('all@example.com')] }, { text: 'sent' }] });
    const taskId = await rt.submit('mail everyone');
    const [approval] = await waitingApproval(rt);
    const id = approval?.id ?? '';
    const bad = await refusal(rt.decide(id, { action: 'edit', arguments: { to: 'not an address' } }));
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).toMatch(/^arguments\.to: .*send_email/);
    expect(rt.approvals()).toHaveLength(1);
    await rt.decide(id, { action: 'edit', arguments: { to: 'team@example.com' } });
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(runs).toEqual(['team@example.com']);
    expect(toolMessages(model.requests[1])[0]).toContain('A person edited this call');
    await rt.shutdown();
  });

  it('refuses a decision on other arguments, a second decision, an unknown id and a malformed decision', async () => {
    const { tool, runs } = guardedTool();
    const { rt } = await quietRuntime({ tools: [tool], steps: [{ toolCalls: [mail('ana@example.com')] }, { text: 'done' }] });
    const taskId = await rt.submit('mail ana');
    const [approval] = await waitingApproval(rt);
    const id = approval?.id ?? '';
    expect((await refusal(rt.decide(id, { action: 'approve', digest: '0'.repeat(64) }))).code).toBe('conflict');
    expect((await refusal(rt.decide('ap-000000000000000000000000', { action: 'approve' }))).code).toBe('unknown_approval');
    const malformed = await refusal(rt.decide(id, { action: 'maybe' } as never));
    expect(malformed.code).toBe('invalid_input');
    expect(runs).toEqual([]);
    await rt.decide(id, { action: 'reject' });
    const second = await refusal(rt.decide(id, { action: 'approve', digest: approval?.digest }));
    expect(second.code).toBe('conflict');
    expect(second.message).toContain('decided already (rejected)');
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(runs).toEqual([]);
    await rt.shutdown();
  });

  it('of two parallel calls where one needs approval, the other runs once, before the Task pauses, and never again', async () => {
    const guarded = guardedTool();
    const plain = plainTool();
    const { rt } = await quietRuntime({
      tools: [guarded.tool, plain.tool],
      steps: [{ toolCalls: [mail('ana@example.com'), { name: 'lookup', arguments: { q: 'ana' } }] }, { text: 'done' }],
    });
    const seen = recordBus(rt);
    const taskId = await rt.submit('look ana up and mail her');
    const [approval] = await waitingApproval(rt);
    await until(() => seen.some((task) => task.id === taskId && awaitsApproval(task)), 'the Task input-required');
    expect(plain.runs).toEqual(['ana']);
    await rt.decide(approval?.id ?? '', { action: 'approve' });
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(plain.runs).toEqual(['ana']);
    expect(guarded.runs).toEqual(['ana@example.com']);
    await rt.shutdown();
  });

  it('asks as the tool’s function of the arguments says, and as the role’s policy requires or skips', async () => {
    const guarded = guardedTool((args) => !args.to.endsWith('@inside.example'));
    const plain = plainTool();
    const { rt } = await quietRuntime({
      tools: [guarded.tool, plain.tool],
      root: { tools: { approvals: { require: ['look*'] } } },
      steps: [{ toolCalls: [mail('bob@inside.example')] }, { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, { text: 'done' }],
    });
    const taskId = await rt.submit('go');
    const [approval] = await waitingApproval(rt);
    expect(guarded.runs).toEqual(['bob@inside.example']);
    expect(approval).toMatchObject({ tool: 'lookup', reason: 'policy' });
    await rt.decide(approval?.id ?? '', { action: 'approve' });
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(plain.runs).toEqual(['x']);
    await rt.shutdown();
  });
});

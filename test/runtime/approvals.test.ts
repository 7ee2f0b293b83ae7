import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TroupeError } from '../../src/errors.js';
import { type Approval, type Task, awaitsApproval } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import { quietRuntime, recordBus, tick, until } from '../support/runtimeFixture.js';
import { stdioFixture } from '../support/mcpFixture.js';
import { lastToolResult, scriptByRole } from '../support/scriptByRole.js';
import { type ScriptStep, SimulatedClock } from '../../src/testing.js';
import type { ChatRequest } from '../../src/llm/index.js';

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

/** Resolves with the waiting approvals once `count` wait, on the desk's announcements (an MCP call's round trip takes real time). */
async function waitingApproval(rt: Runtime, count = 1): Promise<Approval[]> {
  if (rt.approvals().length < count) {
    await new Promise<void>((resolve) => {
      const subscription = rt.approvalEvents().subscribe(() => {
        if (rt.approvals().length < count) return;
        subscription.unsubscribe();
        resolve();
      });
    });
  }
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
    // Its call is over: a late decision is still a second one.
    expect((await refusal(rt.decide(id, { action: 'approve' }))).code).toBe('conflict');
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

  it('ask by default for an MCP server’s tools, but a trusted server’s read-only ones', async () => {
    const { rt } = await quietRuntime({
      mcpServers: {
        loose: { ...stdioFixture('stdioServer'), requireApproval: true },
        sure: { ...stdioFixture('stdioServer'), trusted: true, requireApproval: true },
      },
      steps: [
        { toolCalls: [{ name: 'sure__add', arguments: { a: 1, b: 2 } }] },
        { toolCalls: [{ name: 'loose__add', arguments: { a: 2, b: 3 } }] },
        { text: 'done' },
      ],
    });
    const taskId = await rt.submit('add');
    const [approval] = await waitingApproval(rt);
    expect(approval).toMatchObject({ tool: 'loose__add', reason: 'mcp' });
    await rt.decide(approval?.id ?? '', { action: 'approve' });
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).toMatchObject({ status: 'completed' });
    await rt.shutdown();
  });

  it('an approval inside a sub-agent reaches the person; its parent keeps waiting through the pause, and the sub-agent resumes', async () => {
    const { tool, runs } = guardedTool();
    const script = scriptByRole({
      root: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'clerk', prompt: 'You send mail.' } }] },
        { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'clerk' } }] },
        (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'mail ana' } }] }),
        (request) => ({ text: `clerk said: ${JSON.stringify(lastToolResult(request))}` }),
      ],
      clerk: [{ toolCalls: [mail('ana@example.com')] }, { text: 'mailed ana' }],
    });
    const steps: ScriptStep[] = Array.from({ length: 6 }, () => (request: ChatRequest) => script.reply(request));
    const { rt } = await quietRuntime({ tools: [tool], steps });
    const taskId = await rt.submit('get ana mailed');
    const [approval] = await waitingApproval(rt);
    expect(approval?.agentId).toMatch(/^clerk-/);
    await until(() => rt.agent(approval?.agentId ?? '')?.state === 'running.awaitingApproval', 'the clerk paused');
    expect(rt.agent('root')?.state).toBe('running.turn.acting');
    await rt.decide(approval?.id ?? '', { action: 'approve' });
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(answer.result)).toContain('mailed ana');
    expect(runs).toEqual(['ana@example.com']);
    await rt.shutdown();
  });

  it('expire after approvalExpiryMs, rejected with that reason; the turn’s own time budget stands still meanwhile', async () => {
    const { tool, runs } = guardedTool();
    const clock = new SimulatedClock();
    const { rt, model } = await quietRuntime({
      clock,
      tools: [tool],
      maxTaskMs: 1_000,
      approvalExpiryMs: 60_000,
      steps: [{ toolCalls: [mail('ana@example.com')] }, { text: 'gave up' }],
    });
    const taskId = await rt.submit('mail ana');
    await waitingApproval(rt);
    await until(() => rt.agent('root')?.state === 'running.awaitingApproval', 'the lane paused');
    // Far past the turn's budget: a paused turn does not time out.
    clock.advance(30_000);
    await tick();
    expect(rt.approvals()).toHaveLength(1);
    clock.advance(30_000);
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 5_000 })).toMatchObject({ status: 'completed', result: { text: 'gave up' } });
    expect(runs).toEqual([]);
    expect(toolMessages(model.requests[1])[0]).toContain('it was not approved in time: no decision within 60000 ms (approvalExpiryMs)');
    await rt.shutdown();
  });

  it('refuse a call past maxPendingApprovalsPerAgent with approval_limit, which the model reads', async () => {
    const { tool, runs } = guardedTool();
    const { rt, model } = await quietRuntime({
      tools: [tool],
      maxPendingApprovalsPerAgent: 1,
      steps: [{ toolCalls: [mail('ana@example.com'), mail('bob@example.com')] }, { text: 'one left' }],
    });
    const taskId = await rt.submit('mail both');
    const [approval] = await waitingApproval(rt);
    await rt.decide(approval?.id ?? '', { action: 'approve' });
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(runs).toHaveLength(1);
    const results = toolMessages(model.requests[1]).join('\n');
    expect(results).toContain('approval_limit');
    expect(results).toContain('(maxPendingApprovalsPerAgent)');
    await rt.shutdown();
  });

  it('a thousand calls waiting for approval keep one timer between them, and none per call', async () => {
    const { tool, runs } = guardedTool();
    const clock = new SimulatedClock();
    const calls = Array.from({ length: 1_000 }, (_, i) => mail(`user${i}@example.com`));
    const { rt } = await quietRuntime({
      clock,
      tools: [tool],
      maxToolCallsPerReply: 1_000,
      maxPendingApprovalsPerAgent: 1_000,
      steps: [{ toolCalls: calls }, { text: 'done' }],
    });
    const before = clock.pending;
    const taskId = await rt.submit('mail everyone');
    await waitingApproval(rt, 1_000);
    await until(() => rt.agent('root')?.state === 'running.awaitingApproval', 'the lane paused');
    // The Task's paused time budget holds none; the expiry of all thousand is one timer.
    expect(clock.pending - before).toBe(1);
    for (const approval of rt.approvals()) await rt.decide(approval.id, { action: 'reject' });
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 5_000 })).toMatchObject({ status: 'completed' });
    expect(runs).toEqual([]);
    await rt.shutdown();
  });
});

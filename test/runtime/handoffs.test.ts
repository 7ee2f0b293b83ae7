import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScriptStep } from '../../src/testing.js';
import type { ScriptReply } from '../../src/llm/index.js';
import type { ChatRequest } from '../../src/llm/index.js';
import { type ChatMessage, handoffToolName, taskText } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import type { RuntimeOptions } from '../../src/runtime/index.js';
import { quietRuntime, rejectedCode, until } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';
import { type RoleStep, roleOf, scriptByRole } from '../support/scriptByRole.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';

const later = cleanupAfterEach();

/** A memory-only runtime whose agents follow their role's script; `requestsOf(role)` is what that role's agents were sent. */
async function society(scripts: Record<string, RoleStep[]>, options: RuntimeOptions = {}) {
  const script = scriptByRole(scripts);
  const steps: ScriptStep[] = Array.from({ length: 30 }, () => (request: ChatRequest) => script.reply(request));
  const { rt, model } = await quietRuntime({ steps, ...options });
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  return { rt, requestsOf: (role: string) => model.requests.filter((request) => roleOf(request) === role) };
}

const transfer = (target: string, args: Record<string, string> = {}): RoleStep => ({ toolCalls: [{ name: `transfer_to_${target}`, arguments: args }] });
const lastToolContent = (request: ChatRequest | undefined): string => [...(request?.messages ?? [])].reverse().find((m) => m.role === 'tool')?.content ?? '';

describe('handoff tools', () => {
  it('names each target transfer_to_<name>, made fit for a tool name', () => {
    expect(handoffToolName('billing')).toBe('transfer_to_billing');
    expect(handoffToolName('  Billing Team (EU)! ')).toBe('transfer_to_billing_team_eu');
    expect(handoffToolName('x'.repeat(100))).toHaveLength(64);
    expect(handoffToolName('!!!')).toBeNull();
  });

  it('refuses a role whose targets collide, leave no name, or take a registered tool', async () => {
    const taken = defineTool({ name: 'transfer_to_ops', description: 'x', parameters: z.object({}), execute: () => Promise.resolve(jsonResult({})) });
    const { rt } = await quietRuntime({ tools: [taken] });
    later(async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    });
    const role = (handoffs: string[]) => rt.createRole({ name: `r${Math.random()}`.slice(0, 10), prompt: 'p', handoffs });
    await expect(role(['Billing', 'billing'])).rejects.toThrow(/"Billing" and "billing" both become the tool transfer_to_billing/);
    await expect(role(['!!!'])).rejects.toThrow(/no letter or digit/);
    await expect(role(['ops'])).rejects.toThrow(/becomes transfer_to_ops, the name of a registered tool/);
    expect(await rejectedCode(role(Array.from({ length: 33 }, (_, i) => `t${i}`)))).toBe('invalid_input');
    expect(rt.roles().map((r) => r.name)).toEqual(['root']);
  });

  it('shows the model of the role that lists them its handoff tools beside the shared ones', async () => {
    const { rt, requestsOf } = await society({ root: [{ text: 'done' }] }, { root: { handoffs: ['billing', 'user'] } });
    await rt.waitForAnswer(await rt.submit('hi'), { timeoutMs: 10_000 });
    const names = requestsOf('root')[0]?.tools.map((tool) => tool.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['transfer_to_billing', 'transfer_to_user', 'delegate_task']));
  });
});

describe('handoffs of a role an agent creates', () => {
  it('create_role takes handoffs: its agents get the transfer tools, and bad targets are refused to the model', async () => {
    const { rt, requestsOf } = await society({
      root: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'clash', prompt: 'C.', handoffs: ['Billing', 'billing'] } }] },
        { toolCalls: [{ name: 'create_role', arguments: { name: 'triage', prompt: 'T.', handoffs: ['billing', 'user'] } }] },
        { text: 'made' },
      ],
      triage: [{ text: 'triaged' }],
    });
    await rt.waitForAnswer(await rt.submit('make a triage role'), { timeoutMs: 10_000 });
    expect(lastToolContent(requestsOf('root')[1])).toMatch(/both become the tool transfer_to_billing/);
    expect(rt.roles().find((role) => role.name === 'triage')?.handoffs).toEqual(['billing', 'user']);
    expect(rt.roles().some((role) => role.name === 'clash')).toBe(false);
    const triage = await rt.spawn({ role: 'triage' });
    await rt.waitForAnswer(await rt.send(triage, 'hi'), { timeoutMs: 10_000 });
    expect(requestsOf('triage')[0]?.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['transfer_to_billing', 'transfer_to_user']));
  });
});

describe('handoff bounds', () => {
  it('refuses a handoff past maxHandoffsPerTask: the model reads why and answers itself', async () => {
    const { rt, requestsOf } = await society(
      { root: [transfer('a')], a: [transfer('b'), { text: 'a answers' }], b: [] },
      { root: { handoffs: ['a'] }, maxHandoffsPerTask: 1 },
    );
    await rt.createRole({ name: 'a', prompt: 'A.', handoffs: ['b'] });
    await rt.createRole({ name: 'b', prompt: 'B.' });
    const answer = await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 10_000 });
    expect(taskText(answer)).toBe('a answers');
    expect(lastToolContent(requestsOf('a')[1])).toMatch(/handoff_limit.*maxHandoffsPerTask|maxHandoffsPerTask.*handoff_limit/);
    expect(rt.agents().some((agent) => agent.roleName === 'b')).toBe(false);
  });

  it('hands over only to an agent with room in its mailbox: a full one is refused to the model, a full role gets a new agent', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = defineTool({
      name: 'hold',
      description: 'Waits.',
      parameters: z.object({}),
      execute: async () => {
        await held;
        return jsonResult({ held: true });
      },
    });
    // b holds a Task that says so in a tool call; any other it answers at once.
    const b = (request: ChatRequest): ScriptReply => {
      const last = request.messages.at(-1);
      if (last?.role === 'user' && last.content.includes('hold')) return { toolCalls: [{ name: 'hold', arguments: {} }] };
      return { text: last?.content.includes('"held":true') === true ? 'b held' : 'b answers' };
    };
    // lead hands over with the one transfer tool it has, then answers itself.
    const lead = (request: ChatRequest): ScriptReply => {
      if (request.messages.at(-1)?.role === 'tool') return { text: 'lead answers' };
      const name = request.tools.find((tool) => tool.name.startsWith('transfer_to_'))?.name ?? 'none';
      return { toolCalls: [{ name, arguments: {} }] };
    };
    const { rt, requestsOf } = await society(
      { b: Array.from({ length: 6 }, () => b), lead: [lead, lead], root: [transfer('b')] },
      { tools: [hold], mailboxLimit: 1, maxLanesPerAgent: 1, root: { handoffs: ['b'] } },
    );
    await rt.createRole({ name: 'b', prompt: 'B.' });
    const first = await rt.spawn({ role: 'b' });
    const holding = await rt.send(first, 'hold on', { sessionId: 's1' });
    await until(() => requestsOf('b').length === 1, 'b to hold its first Task');
    const queued = await rt.send(first, 'queued', { sessionId: 's2' });
    await until(() => internalsOf(rt).society.agent(first)?.waitingForTurn === 1, 'the second Task to wait in the mailbox');

    await rt.createRole({ name: 'lead', prompt: 'L.', handoffs: [first] });
    const leader = await rt.spawn({ role: 'lead' });
    const led = await rt.waitForAnswer(await rt.send(leader, 'over to b'), { timeoutMs: 10_000 });
    expect(taskText(led)).toBe('lead answers');
    expect(lastToolContent(requestsOf('lead')[1])).toMatch(new RegExp(`agent ${first} has 1 Tasks waiting \\(mailboxLimit\\)`));

    const routed = await rt.waitForAnswer(await rt.submit('for any b'), { timeoutMs: 10_000 });
    expect(taskText(routed)).toBe('b answers');
    expect(routed.from).not.toBe(first);
    expect(rt.agents().filter((agent) => agent.roleName === 'b')).toHaveLength(2);

    release();
    expect(taskText(await rt.waitForAnswer(holding, { timeoutMs: 10_000 }))).toBe('b held');
    expect(taskText(await rt.waitForAnswer(queued, { timeoutMs: 10_000 }))).toBe('b answers');
  });

  it('refuses to hand a Task back to an agent that had it, so two agents never ping-pong', async () => {
    const { rt, requestsOf } = await society({ root: [transfer('a')], a: [transfer('root'), { text: 'a keeps it' }] }, { root: { handoffs: ['a'] } });
    await rt.createRole({ name: 'a', prompt: 'A.', handoffs: ['root'] });
    const answer = await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 10_000 });
    expect(taskText(answer)).toBe('a keeps it');
    expect(lastToolContent(requestsOf('a')[1])).toContain('had task');
    expect(requestsOf('root')).toHaveLength(1);
  });

  it('takes one handoff per reply: the first, the others refused', async () => {
    const both: RoleStep = {
      toolCalls: [
        { name: 'transfer_to_a', arguments: {} },
        { name: 'transfer_to_b', arguments: {} },
      ],
    };
    const { rt, requestsOf } = await society({ root: [both], a: [{ text: 'a has it' }] }, { root: { handoffs: ['a', 'b'] } });
    await rt.createRole({ name: 'a', prompt: 'A.' });
    await rt.createRole({ name: 'b', prompt: 'B.' });
    const answer = await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 10_000 });
    expect(taskText(answer)).toBe('a has it');
    const results = (requestsOf('a')[0]?.messages ?? []).filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
    expect(results.find((m) => m.name === 'transfer_to_b')?.content).toContain('one handoff per reply');
    expect(rt.agents().some((agent) => agent.roleName === 'b')).toBe(false);
  });
});

describe('what a handoff passes on', () => {
  it("passes what the filter keeps of the session's conversation", async () => {
    const onlyUsers = (messages: readonly ChatMessage[]) => messages.filter((message) => message.role === 'user');
    const { rt, requestsOf } = await society({ root: [transfer('a')], a: [{ text: 'ok' }] }, { root: { handoffs: ['a'] }, handoffs: { filter: onlyUsers } });
    await rt.createRole({ name: 'a', prompt: 'A.' });
    await rt.waitForAnswer(await rt.submit('the question'), { timeoutMs: 10_000 });
    const seen = (requestsOf('a')[0]?.messages ?? []).filter((m) => m.role !== 'system');
    expect(seen.map((m) => m.role)).toEqual(['user']);
    expect(seen[0]?.content).toContain('the question');
  });

  it('gives the session back to root once the agent handed to is terminated', async () => {
    const { rt, requestsOf } = await society({ root: [transfer('a'), { text: 'root again' }], a: [{ text: 'a here' }] }, { root: { handoffs: ['a'] } });
    await rt.createRole({ name: 'a', prompt: 'A.' });
    const first = await rt.submit('one');
    const answer = await rt.waitForAnswer(first, { timeoutMs: 10_000 });
    await rt.terminateAsUser(answer.from, { mode: 'abort' });
    const second = await rt.waitForAnswer(await rt.submit('two', { sessionId: first }), { timeoutMs: 10_000 });
    expect(second.from).toBe('root');
    expect(taskText(second)).toBe('root again');
    expect(requestsOf('root')).toHaveLength(2);
  });
});

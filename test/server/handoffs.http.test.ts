import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptStep } from '../../src/testing.js';
import type { ChatRequest } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { type Task, handoffAction, taskText } from '../../src/task/index.js';
import { defineTool } from '../../src/tools/index.js';
import { z } from 'zod';
import { type MessagesBody, answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { type RoleStep, roleOf, scriptByRole } from '../support/scriptByRole.js';

const serve = serverPerTest();
const later = cleanupAfterEach();

/** A scripted model answering each agent from its role's script, keeping every request it was sent. */
function societyModel(scripts: Record<string, RoleStep[]>): { model: ScriptedModel; requestsOf: (role: string) => ChatRequest[] } {
  const script = scriptByRole(scripts);
  const steps: ScriptStep[] = Array.from({ length: 50 }, () => (request: ChatRequest) => script.reply(request));
  const model = new ScriptedModel(steps);
  return { model, requestsOf: (role) => model.requests.filter((request) => roleOf(request) === role) };
}

const billing = { name: 'billing', prompt: 'You answer billing questions.' };
const handToBilling: RoleStep = { toolCalls: [{ name: 'transfer_to_billing', arguments: { reason: 'a billing question' } }] };

async function submit(url: string, text: string, sessionId?: string): Promise<{ taskId: string; sessionId: string }> {
  const reply = await call<{ taskId: string; sessionId: string }>(url, '/api/submit', { json: sessionId === undefined ? { text } : { text, sessionId } });
  expect(reply.status).toBe(201);
  return reply.body;
}

async function messages(url: string, sessionId: string): Promise<Task[]> {
  const reply = await call<MessagesBody>(url, `/api/messages/${sessionId}?scope=all`);
  expect(reply.status).toBe(200);
  return reply.body.messages;
}

describe('handoffs over HTTP, offline', () => {
  it("goes on with the agent handed to: the session's next message reaches it, not root", async () => {
    const { model, requestsOf } = societyModel({ root: [handToBilling], billing: [{ text: 'refund sent' }, { text: 'it arrives Monday' }] });
    const { rt, url } = await serve({ model, runtime: { root: { handoffs: ['billing'] } } });
    await rt.createRole(billing);
    const roles = await call<{ roles: { name: string; handoffs?: string[] }[] }>(url, '/api/roles');
    expect(roles.body.roles.find((role) => role.name === 'root')?.handoffs).toEqual(['billing']);

    const first = await submit(url, 'I want a refund');
    const answer = await answered(rt, first.taskId);
    expect(answer.status).toBe('completed');
    expect(taskText(answer)).toBe('refund sent');
    const billingId = answer.from;
    expect(rt.agent(billingId)?.roleName).toBe('billing');

    // The target saw the session as root left it: the user's words, then root's handoff call and its result.
    const seen = requestsOf('billing')[0]?.messages ?? [];
    expect(seen.some((message) => message.role === 'user' && message.content.includes('I want a refund'))).toBe(true);
    expect(seen.some((message) => message.role === 'assistant' && message.toolCalls.some((c) => c.name === 'transfer_to_billing'))).toBe(true);

    // root has no step left: a second message routed to root would fail its turn.
    const second = await submit(url, 'when does it arrive?', first.sessionId);
    const next = await answered(rt, second.taskId);
    expect(next.status).toBe('completed');
    expect(next.from).toBe(billingId);
    expect(taskText(next)).toBe('it arrives Monday');

    const log = await messages(url, first.sessionId);
    const notice = log.find((task) => task.action === handoffAction);
    expect(notice).toMatchObject({ from: 'root', to: billingId, parentId: first.taskId, status: 'completed' });
    expect(log.some((task) => task.id === second.taskId && task.to === billingId && task.from === 'user')).toBe(true);
  });

  it('keeps the agent handed to across a restart with a data dir', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-handoff-'));
    const start = async (model: ScriptedModel) => {
      const logger = new MemoryLogger();
      const rt = await createRuntime({ model, logger, dataDir, root: { handoffs: ['billing'] } });
      const server = createHttpServer(rt, { logger });
      const url = await server.listen({ port: 0, host: '127.0.0.1' });
      const stop = async (): Promise<void> => {
        await server.close();
        await rt.shutdown({ drainTimeoutMs: 0 });
      };
      return { rt, url, stop };
    };
    const before = await start(societyModel({ root: [handToBilling], billing: [{ text: 'refund sent' }] }).model);
    await before.rt.createRole(billing);
    const first = await submit(before.url, 'I want a refund');
    const billingId = (await answered(before.rt, first.taskId)).from;
    await before.stop();

    const after = await start(societyModel({ root: [], billing: [{ text: 'still Monday' }] }).model);
    later(after.stop);
    const second = await submit(after.url, 'when does it arrive?', first.sessionId);
    const next = await answered(after.rt, second.taskId);
    expect(next.from).toBe(billingId);
    expect(taskText(next)).toBe('still Monday');
  });

  it('runs the tool called beside a handoff, keeps its result, then hands off', async () => {
    const looked: string[] = [];
    const lookup = defineTool({
      name: 'lookup_order',
      description: 'Finds an order',
      parameters: z.object({ order: z.string() }),
      execute: (args) => {
        looked.push(args.order);
        return Promise.resolve({ content: `order ${args.order}: shipped` });
      },
    });
    const both: RoleStep = {
      toolCalls: [
        { name: 'lookup_order', arguments: { order: '7' } },
        { name: 'transfer_to_billing', arguments: {} },
      ],
    };
    const { model, requestsOf } = societyModel({ root: [both], billing: [{ text: 'order 7 is refunded' }] });
    const { rt, url } = await serve({ model, runtime: { root: { handoffs: ['billing'] }, tools: [lookup] } });
    await rt.createRole(billing);

    const { taskId } = await submit(url, 'refund order 7');
    const answer = await answered(rt, taskId);
    expect(answer.status).toBe('completed');
    expect(answer.from).not.toBe('root');
    expect(looked).toEqual(['7']);
    const seen = requestsOf('billing')[0]?.messages ?? [];
    expect(seen).toContainEqual(expect.objectContaining({ role: 'tool', name: 'lookup_order', content: 'order 7: shipped' }));
    expect(seen).toContainEqual(expect.objectContaining({ role: 'tool', name: 'transfer_to_billing' }));
  });

  it("hands back to the user: the Task is input-required and the user's answer in the session comes back", async () => {
    const ask: RoleStep = { toolCalls: [{ name: 'transfer_to_user', arguments: { message: 'Which order?' } }] };
    const { model, requestsOf } = societyModel({ root: [ask, { text: 'order 7 is refunded' }] });
    const { rt, url } = await serve({ model, runtime: { root: { handoffs: ['user'] } } });
    const waiting = firstValueFrom(rt.events('*').pipe(filter((task) => task.to === 'user' && task.status === 'input-required')));

    const first = await submit(url, 'I want a refund');
    const asked = await waiting;
    expect(asked).toMatchObject({ id: first.taskId, from: 'root', status: 'input-required' });
    expect(taskText(asked)).toBe('Which order?');
    const log = await messages(url, first.sessionId);
    expect(log.filter((task) => task.id === first.taskId).at(-1)?.status).toBe('input-required');

    const second = await submit(url, 'order 7', first.sessionId);
    const answer = await answered(rt, second.taskId);
    expect(taskText(answer)).toBe('order 7 is refunded');
    expect(requestsOf('root')).toHaveLength(2);
  });
});

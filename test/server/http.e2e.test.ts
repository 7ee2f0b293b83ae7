import { describe, expect, it } from 'vitest';
import { createHttpServer, isLoopback } from '../../src/server/index.js';
import { Actions, type Task, finalStatuses, taskText } from '../../src/task/index.js';
import { type MessagesBody, type Served, answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { EventStreamClient } from '../support/eventStreamClient.js';

/** Every Task the bus delivers from now on, in delivery order. */
function recordBus(rt: Served['rt']): Task[] {
  const seen: Task[] = [];
  rt.bus.on('*').subscribe((task) => seen.push(task));
  return seen;
}

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

describe('HTTP API over real sockets, offline society', () => {
  it('submit → the society works → GET /api/messages/:taskId returns the answer', async () => {
    const served = await serve();
    const submitted = await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain' } });
    expect(submitted.status).toBe(201);
    const { taskId } = submitted.body;
    const answer = await answered(served.rt, taskId);

    const messages = await call<MessagesBody>(served.url, `/api/messages/${taskId}`);
    expect(messages.status).toBe(200);
    expect(messages.body.source).toBe('store');
    expect(messages.body.messages.map((task) => task.id)).toContain(answer.id);
    const final = messages.body.messages.find((task) => task.id === taskId && task.status === 'completed');
    expect(final === undefined ? '' : taskText(final)).toContain('each drop a small syllable');
    expect(messages.body.messages.every((task) => task.to === 'user')).toBe(true);

    // Paged one at a time, the pages add up to the whole list.
    const pages: string[] = [];
    for (let offset = 0; offset < messages.body.total; offset++) {
      const one = await call<MessagesBody>(served.url, `/api/messages/${taskId}?offset=${offset}&limit=1`);
      pages.push(...one.body.messages.map((task) => `${task.id}:${task.status}`));
    }
    expect(pages).toEqual(messages.body.messages.map((task) => `${task.id}:${task.status}`));
    // The whole tree starts with the user's own Task.
    const all = await call<MessagesBody>(served.url, `/api/messages/${taskId}?scope=all&limit=1`);
    expect(all.body.messages[0]).toMatchObject({ id: taskId, from: 'user', to: 'root', action: Actions.execute });
  });

  it('lists agents and roles, and sends to a named agent', async () => {
    const served = await serve();
    const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain' } })).body;
    await answered(served.rt, taskId);
    const agents = await call<{ agents: { id: string; roleName: string; status: string; parentAgentId: string | null }[] }>(served.url, '/api/agents');
    expect(agents.body.agents.find((agent) => agent.id === 'root')).toMatchObject({ roleName: 'root', status: 'active', parentAgentId: null });
    expect(agents.body.agents.some((agent) => agent.roleName === 'poet' && agent.parentAgentId === 'root')).toBe(true);
    const roles = await call<{ roles: { name: string }[] }>(served.url, '/api/roles');
    expect(roles.body.roles.map((role) => role.name).sort()).toEqual(['poet', 'root']);
    expect((await call(served.url, '/api/agents/root')).body).toMatchObject({ id: 'root', roleName: 'root' });

    const worker = await served.rt.spawn({ role: 'poet' });
    const seen = served.rt.bus.to(worker);
    const received: string[] = [];
    seen.subscribe((task) => received.push(task.id));
    const sent = await call<{ messageId: string }>(served.url, '/api/send', { json: { agentId: worker, text: 'a haiku about snow', taskId } });
    expect(sent.status).toBe(201);
    expect(received).toEqual([sent.body.messageId]);
    const reply = await answered(served.rt, sent.body.messageId);
    expect(reply).toMatchObject({ from: worker, to: 'user', sessionId: taskId });
    // Sent within the first task's tree, so its reply is one of that task's messages.
    const messages = await call<MessagesBody>(served.url, `/api/messages/${taskId}`);
    expect(messages.body.messages.map((task) => task.id)).toContain(reply.id);
  });

  it('streams the Tasks of a task over SSE in bus order, filtered by task id', async () => {
    const served = await serve();
    const everything = await EventStreamClient.open(served.url, '/api/events');
    const onBus = recordBus(served.rt);
    const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain' } })).body;
    await answered(served.rt, taskId);
    await everything.until((client) => client.tasks.some((task) => task.id === taskId && finalStatuses.has(task.status)));
    const ofTask = (tasks: readonly Task[]): string[] =>
      tasks.filter((task) => task.sessionId === taskId).map((task) => `${task.id}:${task.action}:${task.status}`);
    expect(ofTask(everything.tasks)).toEqual(ofTask(onBus));
    expect(ofTask(everything.tasks).length).toBeGreaterThan(5);
    // Ids are the server's run and a count from 1: `<run>-1`, `<run>-2` …
    const run = everything.events[0]?.id?.replace(/-1$/, '') ?? '';
    expect(everything.events.map((event) => event.id)).toEqual(everything.events.map((_, index) => `${run}-${index + 1}`));

    // A filtered stream sees only that tree: a follow-up sent into it, and its reply.
    const filtered = await EventStreamClient.open(served.url, `/api/events?taskId=${taskId}&action=node.*`);
    const sent = (await call<{ messageId: string }>(served.url, '/api/send', { json: { agentId: 'root', text: 'thanks', taskId } })).body;
    await filtered.until((client) => client.tasks.some((task) => task.id === sent.messageId && finalStatuses.has(task.status)));
    expect(filtered.tasks.length).toBeGreaterThan(1);
    expect(filtered.tasks.every((task) => task.sessionId === taskId && task.action.startsWith('node.'))).toBe(true);
    everything.close();
    filtered.close();
  });

  it('answers health, readiness and an OpenAPI document generated from the schemas', async () => {
    const served = await serve({ memory: true });
    expect((await call(served.url, '/health')).body).toEqual({ status: 'ok' });
    expect((await call(served.url, '/ready')).body).toEqual({ ready: true, state: 'running' });
    const doc = await call<{ openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(served.url, '/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/submit', '/api/send', '/api/messages/{taskId}', '/api/agents', '/api/events']));
    const task = doc.body.components.schemas['Task'] as { type: string; required: string[] };
    expect(task.type).toBe('object');
    expect(task.required).toEqual(expect.arrayContaining(['id', 'sessionId', 'status']));
    expect(JSON.stringify(doc.body)).not.toContain('__shared');
  });

  it('warns when bound beyond loopback without a token, and not on loopback', async () => {
    const served = await serve({ memory: true });
    expect(served.logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
    const open = createHttpServer(served.rt, { logger: served.logger });
    await open.listen({ port: 0, host: '0.0.0.0' });
    await open.close();
    expect(served.logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes('without a token'))).toBe(true);
    expect(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost') && !isLoopback('0.0.0.0') && !isLoopback('10.0.0.1')).toBe(true);
  });
});

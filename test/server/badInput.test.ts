import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessagesBody, type Served, answered, call, serve } from '../support/httpServerFixture.js';
import { EventStreamClient } from '../support/eventStreamClient.js';

const token = 'correct-horse-battery-staple';
let served: Served;
let gone: string;
let acceptedTaskId: string;

beforeAll(async () => {
  served = await serve({ runtime: { maxInputChars: 2_000 }, server: { token, bodyLimitBytes: 8 * 1024 } });
  gone = await served.rt.spawn({ role: 'root' });
  await served.rt.terminate(gone, { by: 'user' });
  // Accepted before the bad input: it must still be answered and readable afterwards.
  acceptedTaskId = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain' }, token })).body.taskId;
});
afterAll(() => served.close());

interface Case {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  /** A function when the body needs something made in `beforeAll`. */
  readonly json?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  /** false: send no token; a string: send that one. Default: the right token. */
  readonly token?: string | false;
  readonly status: number;
  readonly code: string;
  readonly field?: string | null;
}

const cases: Case[] = [
  {
    name: 'malformed JSON',
    path: '/api/submit',
    raw: '{"text": "unterminated',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'malformed_json',
  },
  { name: 'empty JSON body', path: '/api/submit', raw: '', headers: { 'content-type': 'application/json' }, status: 400, code: 'malformed_json' },
  {
    name: 'prototype poisoning',
    path: '/api/submit',
    raw: '{"text":"x","__proto__":{"admin":true}}',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'malformed_json',
  },
  { name: 'text of the wrong type', path: '/api/submit', json: { text: 42 }, status: 400, code: 'invalid_input', field: 'text' },
  { name: 'text missing', path: '/api/submit', json: {}, status: 400, code: 'invalid_input', field: 'text' },
  { name: 'blank text', path: '/api/submit', json: { text: '   ' }, status: 400, code: 'invalid_input', field: 'text' },
  { name: 'text over maxInputChars', path: '/api/submit', json: { text: 'x'.repeat(2_001) }, status: 400, code: 'invalid_input', field: 'text' },
  { name: 'a body that is not an object', path: '/api/submit', json: ['write'], status: 400, code: 'invalid_input', field: null },
  { name: 'an unknown key', path: '/api/send', json: { agentId: 'root', text: 'hi', priority: 9 }, status: 400, code: 'invalid_input', field: null },
  {
    name: 'agent id of the wrong shape',
    path: '/api/send',
    json: { agentId: 'no such/agent', text: 'hi' },
    status: 400,
    code: 'invalid_input',
    field: 'agentId',
  },
  {
    name: 'task id of the wrong shape',
    path: '/api/send',
    json: { agentId: 'root', text: 'hi', taskId: 'a b' },
    status: 400,
    code: 'invalid_input',
    field: 'taskId',
  },
  { name: 'unknown agent', path: '/api/send', json: { agentId: 'nobody', text: 'hi' }, status: 404, code: 'unknown_agent' },
  { name: 'terminated agent', path: '/api/send', json: () => ({ agentId: gone, text: 'hi' }), status: 409, code: 'agent_terminated' },
  { name: 'addressed to the user', path: '/api/send', json: { agentId: 'user', text: 'hi' }, status: 400, code: 'user_to_user' },
  { name: 'oversized body', path: '/api/submit', json: { text: 'x'.repeat(9 * 1024) }, status: 413, code: 'body_too_large' },
  {
    name: 'text/plain body',
    path: '/api/submit',
    raw: 'write a haiku',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'form body',
    path: '/api/submit',
    raw: 'text=hi',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'no token', path: '/api/agents', token: false, status: 401, code: 'unauthorized' },
  { name: 'wrong token', path: '/api/submit', json: { text: 'hi' }, token: 'guess', status: 401, code: 'unauthorized' },
  { name: 'no token on an unknown route', path: '/api/nothing', token: false, status: 401, code: 'unauthorized' },
  {
    name: 'token in the query of a route that only takes the header',
    path: `/api/agents?access_token=${token}`,
    token: false,
    status: 401,
    code: 'unauthorized',
  },
  { name: 'wrong token in the query of the event stream', path: '/api/events?access_token=guess', token: false, status: 401, code: 'unauthorized' },
  { name: 'unknown route', path: '/api/nothing', status: 404, code: 'route_not_found' },
  { name: 'unknown task', path: '/api/messages/no-such-task', status: 404, code: 'unknown_task', field: 'taskId' },
  { name: 'unknown task with the longest id', path: `/api/messages/${'t'.repeat(128)}`, status: 404, code: 'unknown_task', field: 'taskId' },
  { name: 'task id one character too long', path: `/api/messages/${'t'.repeat(129)}`, status: 400, code: 'invalid_input', field: 'taskId' },
  { name: 'task id param of the wrong shape', path: '/api/messages/a%20b', status: 400, code: 'invalid_input', field: 'taskId' },
  { name: 'limit of zero', path: '/api/messages/t1?limit=0', status: 400, code: 'invalid_input', field: 'limit' },
  { name: 'limit not a number', path: '/api/messages/t1?limit=ten', status: 400, code: 'invalid_input', field: 'limit' },
  { name: 'unknown query key', path: '/api/messages/t1?order=desc', status: 400, code: 'invalid_input', field: null },
  { name: 'unknown agent by id', path: '/api/agents/nobody', status: 404, code: 'unknown_agent', field: 'id' },
  { name: 'bad action pattern on the event stream', path: '/api/events?action=Not%20A%20Pattern', status: 400, code: 'invalid_input', field: 'action' },
];

describe('bad input: the documented status and code, and the server keeps serving', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const reply = await call<{ error: { code: string; message: string; field: string | null } }>(served.url, c.path, {
      ...(c.method === undefined ? {} : { method: c.method }),
      ...(c.json === undefined ? {} : { json: typeof c.json === 'function' ? (c.json as () => unknown)() : c.json }),
      ...(c.raw === undefined ? {} : { raw: c.raw, method: 'POST' }),
      ...(c.headers === undefined ? {} : { headers: c.headers }),
      ...(c.token === false ? {} : { token: c.token ?? token }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(c.status);
    expect(reply.body.error.code).toBe(c.code);
    expect(reply.body.error.message.length).toBeGreaterThan(0);
    expect(JSON.stringify(reply.body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d/);
    if (c.field !== undefined) expect(reply.body.error.field).toBe(c.field);
    expect((await call(served.url, '/health')).status).toBe(200);
  });

  it('lets health through without a token, and still answers what it had accepted', async () => {
    expect((await call(served.url, '/health')).body).toEqual({ status: 'ok' });
    expect((await call(served.url, '/ready')).status).toBe(200);
    await answered(served.rt, acceptedTaskId);
    const messages = await call<MessagesBody>(served.url, `/api/messages/${acceptedTaskId}`, { token });
    expect(messages.body.messages.some((task) => task.id === acceptedTaskId && task.status === 'completed')).toBe(true);
    const again = await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about snow' }, token });
    expect(again.status).toBe(201);
    await answered(served.rt, again.body.taskId);
    expect(served.logger.entries.filter((entry) => entry.message === 'request failed')).toEqual([]);
  });
});

describe('the event stream for a browser', () => {
  it('takes the token as ?access_token=, since an EventSource cannot send headers', async () => {
    // open() rejects unless the server answers 200 and its stream says it is connected.
    const stream = await EventStreamClient.open(served.url, `/api/events?access_token=${encodeURIComponent(token)}`);
    const taskId = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about fog' }, token })).body.taskId;
    await stream.until((client) => client.tasks.some((task) => task.id === taskId));
    stream.close();
  });
});

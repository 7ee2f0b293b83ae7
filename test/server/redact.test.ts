import { describe, expect, it } from 'vitest';
import { Redactor, redactedMark } from '../../src/server/index.js';
import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import { createTask } from '../../src/task/index.js';
import { answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { EventStreamClient } from '../support/eventStreamClient.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

describe('Redactor', () => {
  const redactor = new Redactor(['hunter2-configured', undefined, 'abc']);

  it('takes out configured secrets, well-known key shapes and values under secret-looking keys', () => {
    expect(redactor.text('key sk-abcdefghijklmnopqrstuv and hunter2-configured')).toBe(`key ${redactedMark} and ${redactedMark}`);
    expect(redactor.text('Authorization: Bearer abc.def.ghi-jkl')).toBe(`Authorization: ${redactedMark}`);
    expect(redactor.value({ apiKey: 'x', access_token: 'y', nested: [{ clientSecret: 1, promptTokens: 12, note: 'plain' }] })).toEqual({
      apiKey: redactedMark,
      access_token: redactedMark,
      nested: [{ clientSecret: redactedMark, promptTokens: 12, note: 'plain' }],
    });
    // Too short to be a secret worth garbling every text for.
    expect(redactor.text('abc')).toBe('abc');
  });

  it('redacts a Task without changing its routing fields', () => {
    const task = createTask(
      { from: 'a', to: 'b', action: 'node.message', parameters: { text: 'use hunter2-configured', password: 'p' } },
      { ids: sequentialIds(), clock: systemClock },
    );
    const out = redactor.task(task);
    expect(out).toMatchObject({ id: task.id, from: 'a', to: 'b', parameters: { text: `use ${redactedMark}`, password: redactedMark } });
    expect(task.parameters['password']).toBe('p');
  });
});

describe('GET /api/events redaction', () => {
  it('never sends a configured secret or the server token to an event stream client', async () => {
    const token = 'stream-token-123456';
    const served = await serve({ memory: true, server: { token, secrets: ['sk-live-configured-model-key'] } });
    const events = await EventStreamClient.open(served.url, '/api/events', token);
    const text = `write a haiku about rain, key sk-live-configured-model-key, token ${token}`;
    const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text }, token })).body;
    await answered(served.rt, taskId);
    await events.until((client) => client.tasks.some((task) => task.id === taskId && task.status === 'completed'));
    const raw = events.events.map((event) => event.data).join('\n');
    expect(raw).not.toContain('sk-live-configured-model-key');
    expect(raw).not.toContain(token);
    expect(raw).toContain(redactedMark);
    events.close();
  });
});

describe('read routes redaction', () => {
  it('/api/messages and /api/roles redact the runtime secrets and the token, on a data dir too', async () => {
    const token = 'read-token-1234567';
    const runtimeSecret = 'runtime-only-secret-value';
    const served = await serve({ runtime: { secrets: [runtimeSecret] }, server: { token } });
    await served.rt.createRole({ name: 'keeper', prompt: `You guard ${runtimeSecret} and ${token}.` });
    const text = `remember ${runtimeSecret} and ${token}`;
    const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text }, token })).body;
    await answered(served.rt, taskId);
    const messages = await call(served.url, `/api/messages/${taskId}?scope=all`, { token });
    const roles = await call(served.url, '/api/roles', { token });
    expect(messages.status).toBe(200);
    expect(roles.status).toBe(200);
    for (const body of [JSON.stringify(messages.body), JSON.stringify(roles.body)]) {
      expect(body).toContain(redactedMark);
      expect(body).not.toContain(runtimeSecret);
      expect(body).not.toContain(token);
    }
  });
});

describe('a session named with a secret', () => {
  it('/api/messages redacts the ids of the Tasks it returns, as the event stream does', async () => {
    const secret = 'session-named-secret-42';
    const served = await serve({ runtime: { secrets: [secret] } });
    const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain', sessionId: secret } })).body;
    await answered(served.rt, taskId);
    // A session's messages are asked for by its id: the client names the secret, the reply must not.
    for (const path of [`/api/messages/${secret}`, `/api/messages/${secret}?scope=all`]) {
      const messages = await call<{ messages: { sessionId: string }[] }>(served.url, path);
      expect(messages.status).toBe(200);
      expect(messages.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(messages.body.messages.length).toBeGreaterThan(0);
      expect(messages.body.messages.every((task) => task.sessionId === redactedMark)).toBe(true);
      expect(JSON.stringify(messages.body)).not.toContain(secret);
    }
  });
});

describe('what the server lets out besides Tasks', () => {
  it('redacts its refusals, which name what they were given, and logs with its token redacted though only it knows the token', async () => {
    const token = 'c0ffee00c0ffee00';
    const served = await serve({ memory: true, server: { token } });
    const refused = await call<{ error: { message: string } }>(served.url, `/api/agents/${token}`, { token });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toBe(`no agent "${redactedMark}"`);
    const unknownRoute = await call<{ error: { message: string } }>(served.url, `/api/${token}`, { token });
    expect(unknownRoute.body.error.message).toBe(`no route GET /api/${redactedMark}`);
    await served.server.close();
    const logged = JSON.stringify(served.logger.entries);
    expect(logged).toContain(`/api/agents/${redactedMark}`);
    expect(logged).not.toContain(token);
  });

  it('/api/agents and /api/roles redact a role name a model wrote a secret into', async () => {
    const secret = 'Open Sesame 42!';
    const served = await serve({ memory: true, runtime: { secrets: [secret] } });
    await served.rt.createRole({ name: `keeper of ${secret}`, prompt: 'p' });
    const agentId = await served.rt.spawn({ role: `keeper of ${secret}` });
    const agents = await call<{ agents: { id: string; roleName: string }[] }>(served.url, '/api/agents');
    expect(agents.body.agents.find((agent) => agent.id === agentId)?.roleName).toBe(`keeper of ${redactedMark}`);
    expect((await call<{ roleName: string }>(served.url, `/api/agents/${agentId}`)).body.roleName).toBe(`keeper of ${redactedMark}`);
    expect((await call<{ roles: { name: string }[] }>(served.url, '/api/roles')).body.roles.map((role) => role.name)).toContain(`keeper of ${redactedMark}`);
  });
});

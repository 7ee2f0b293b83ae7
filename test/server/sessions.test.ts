import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessagesBody, type Served, answered, call, serve } from '../support/httpServerFixture.js';

// Sessions at the HTTP door: a submit without one starts a session named by its first Task, a
// submit with one continues it, and both replies say which session the Task is in.

let served: Served;
beforeAll(async () => {
  served = await serve();
});
afterAll(() => served.close());

describe('sessions over HTTP', () => {
  it('a submit without a session starts one named by its Task; with one, continues it', async () => {
    const first = await call<{ taskId: string; sessionId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku about rain' } });
    expect(first.status).toBe(201);
    expect(first.body.sessionId).toBe(first.body.taskId);
    await answered(served.rt, first.body.taskId);

    const second = await call<{ taskId: string; sessionId: string }>(served.url, '/api/submit', {
      json: { text: 'write a haiku about snow', sessionId: first.body.sessionId },
    });
    expect(second.status).toBe(201);
    expect(second.body.taskId).not.toBe(first.body.taskId);
    expect(second.body.sessionId).toBe(first.body.sessionId);
    const answer = await answered(served.rt, second.body.taskId);
    expect(answer.sessionId).toBe(first.body.sessionId);

    // The session's messages hold both exchanges, in order.
    const messages = await call<MessagesBody>(served.url, `/api/messages/${first.body.sessionId}?scope=all`);
    const asked = messages.body.messages.filter((task) => task.from === 'user').map((task) => task.id);
    expect(asked).toEqual([first.body.taskId, second.body.taskId]);
  });

  it('a client may name a new session; send takes one too and says which it used', async () => {
    const named = await call<{ taskId: string; sessionId: string }>(served.url, '/api/submit', { json: { text: 'write a haiku', sessionId: 'chat-42' } });
    expect(named.body.sessionId).toBe('chat-42');
    const sent = await call<{ messageId: string; sessionId: string }>(served.url, '/api/send', {
      json: { agentId: 'root', text: 'and another', sessionId: 'chat-42' },
    });
    expect(sent.status).toBe(201);
    expect(sent.body.sessionId).toBe('chat-42');
    const answer = await answered(served.rt, sent.body.messageId);
    expect(answer.sessionId).toBe('chat-42');
    // Without a session or a task, a sent message starts its own session.
    const alone = await call<{ messageId: string; sessionId: string }>(served.url, '/api/send', { json: { agentId: 'root', text: 'hello' } });
    expect(alone.body.sessionId).toBe(alone.body.messageId);
  });

  it('a malformed session id is refused naming the field, and nothing is sent', async () => {
    const before = served.rt.inbox().length;
    for (const path of ['/api/submit', '/api/send']) {
      const reply = await call<{ error: { code: string; field: string } }>(served.url, path, {
        json: { agentId: 'root', text: 'hi', sessionId: 'not a session!' },
      });
      expect(reply.status, path).toBe(400);
      expect(reply.body.error).toMatchObject({ code: 'invalid_input', field: 'sessionId' });
    }
    await expect(served.rt.submit('hi', { sessionId: '' })).rejects.toThrow(/sessionId/);
    await expect(served.rt.send('root', 'hi', { sessionId: 'a b' })).rejects.toThrow(/sessionId/);
    expect(served.rt.inbox().length).toBe(before);
  });
});

import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

interface ErrorReply {
  readonly error: { readonly code: string; readonly message: string; readonly field: string | null };
}

describe('HTTP contract', () => {
  it('a known path asked with a method it does not take is a 405 with Allow, in the API format', async () => {
    const served = await serve({ memory: true });
    const put = await call<ErrorReply>(served.url, '/api/submit', { method: 'PUT', json: { text: 'x' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST');
    expect(put.body.error).toMatchObject({ code: 'method_not_allowed', field: null });
    expect(put.body.error.message).toContain('PUT');

    const post = await call<ErrorReply>(served.url, '/api/messages/some-task', { method: 'POST', json: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const remove = await call<ErrorReply>(served.url, '/api/roles', { method: 'DELETE' });
    expect(remove.status).toBe(405);
    const patch = await call<ErrorReply>(served.url, '/api/agents/root', { method: 'PATCH', json: {} });
    expect(patch.headers.get('allow')).toBe('GET, HEAD, DELETE');

    // A path nobody serves stays a 404.
    expect((await call<ErrorReply>(served.url, '/api/nothing', { method: 'PUT', json: {} })).body.error.code).toBe('route_not_found');
  });

  it('CORS is off by default: no access-control headers, OPTIONS is a 405', async () => {
    const served = await serve({ memory: true });
    const reply = await call(served.url, '/health', { headers: { origin: 'https://app.example.com' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${served.url}/api/submit`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
  });

  it('with corsOrigins, a preflight is answered before auth and replies (refusals too) carry the origin', async () => {
    const served = await serve({ memory: true, server: { token: 'cors-token', corsOrigins: ['https://app.example.com'] } });
    const preflight = await fetch(`${served.url}/api/submit`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');

    const refused = await call<ErrorReply>(served.url, '/api/agents', { headers: { origin: 'https://app.example.com' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const allowed = await call(served.url, '/api/agents', { token: 'cors-token', headers: { origin: 'https://app.example.com' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');

    const stranger = await call(served.url, '/api/agents', { token: 'cors-token', headers: { origin: 'https://evil.example.com' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a CORS origin that is not an origin, naming the option', async () => {
    const rt = await createRuntime();
    expect(() => createHttpServer(rt, { corsOrigins: ['https://app.example.com/path'] })).toThrow(/corsOrigins\[0\]: must be "\*" or an origin/);
    await rt.shutdown();
  });

  it('drain(): intake and new event streams answer 503 intake_closed, /ready 503, open streams end, reads are still served', async () => {
    const served = await serve({ memory: true });
    const stream = await EventStreamClient.open(served.url, '/api/events');
    served.server.drain();
    await stream.until((client) => client.ended);
    expect(stream.ended).toBe(true);

    const submit = await call<ErrorReply>(served.url, '/api/submit', { json: { text: 'too late' } });
    expect(submit.status).toBe(503);
    expect(submit.body.error.code).toBe('intake_closed');
    expect((await call<ErrorReply>(served.url, '/api/events')).status).toBe(503);
    const ready = await call<{ ready: boolean; state: string }>(served.url, '/ready');
    expect(ready).toMatchObject({ status: 503, body: { ready: false, state: 'draining' } });
    expect((await call(served.url, '/api/agents')).status).toBe(200);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { createTask } from '../../src/task/index.js';
import { type Served, call, serverPerTest } from '../support/httpServerFixture.js';
import { RawHttpClient } from '../support/rawHttpClient.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();
afterEach(() => {
  RawHttpClient.destroyAll();
});

/** An event stream opened from `localAddress` (another client, to the server) that reads its head and then nothing more. */
async function idleStream(url: string, localAddress = '127.0.0.1', path = '/api/events'): Promise<RawHttpClient> {
  const client = await RawHttpClient.connect(url, { localAddress });
  await client.write(`GET ${path} HTTP/1.1\r\nHost: troupe\r\n\r\n`);
  return client;
}

const cutOff = 'event stream cut off: the client read too slowly';

/**
 * Publishes 16 KiB Tasks until the server logs a cut-off (socket buffers in the kernel fill
 * first, then the server's), yielding to I/O now and then; fails after 400 MiB.
 */
async function publishUntilCutOff(target: Served): Promise<Record<string, unknown>> {
  const blob = 'x'.repeat(16 * 1024);
  for (let sent = 0; sent < 25_600; sent++) {
    target.rt.bus.publish(createTask({ from: 'root', to: 'observer', action: 'node.note', parameters: { blob } }, { ids: randomIds, clock: systemClock }));
    const entry = target.logger.entries.find((line) => line.message === cutOff);
    if (entry !== undefined) return entry.fields;
    if (sent % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('no event stream was cut off');
}

describe('event streams under abuse', () => {
  it('refuses a stream past the per-client limit and past the overall limit with a 429 naming the limit', async () => {
    const served = await serve({ memory: true, server: { maxEventStreams: 3, maxEventStreamsPerClient: 2 } });
    const first = await idleStream(served.url);
    const second = await idleStream(served.url);
    expect([await first.status(), await second.status()]).toEqual([200, 200]);
    const refused = await call<{ error: { code: string; message: string } }>(served.url, '/api/events');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'too_many_streams' });
    expect(refused.body.error.message).toContain('maxEventStreamsPerClient');

    // Another address is another client, up to the overall limit.
    expect(await (await idleStream(served.url, '127.0.0.2')).status()).toBe(200);
    const overall = await idleStream(served.url, '127.0.0.3');
    expect(await overall.status()).toBe(429);
    expect((await overall.json()).error.message).toContain('maxEventStreams');
  });

  it('with a token, the token is the client: streams over ?access_token= and the header count together', async () => {
    const served = await serve({ memory: true, server: { token: 'stream-token', maxEventStreamsPerClient: 1 } });
    expect(await (await idleStream(served.url, '127.0.0.1', '/api/events?access_token=stream-token')).status()).toBe(200);
    // From another address, with the header: the same token, so the same client.
    const refused = await RawHttpClient.connect(served.url, { localAddress: '127.0.0.2' });
    await refused.write('GET /api/events HTTP/1.1\r\nHost: troupe\r\nAuthorization: Bearer stream-token\r\n\r\n');
    expect(await refused.status()).toBe(429);
  });

  it('cuts off a client that never reads once its stream holds maxStreamBufferBytes, frees its place and closes its connection', async () => {
    const served = await serve({ memory: true, server: { maxEventStreams: 1, maxStreamBufferBytes: 256 * 1024 } });
    const idle = await idleStream(served.url);
    await idle.until((received) => received.includes(': connected'), 'the stream opened');
    idle.socket.pause();

    const fields = await publishUntilCutOff(served);
    expect(String(fields['reason'])).toContain('maxStreamBufferBytes');
    // Its place is free at once: with maxEventStreams 1, a new stream opens.
    expect(await (await idleStream(served.url)).status()).toBe(200);
    // Its connection was reset, so nothing waits for it in the kernel either: reading again, the client finds the reset.
    idle.socket.resume();
    await idle.closed;
    expect(idle.ending).toBe('error: ECONNRESET');
  });

  it('cuts off the streams holding most once all together hold maxTotalStreamBufferBytes', async () => {
    const served = await serve({ memory: true, server: { maxStreamBufferBytes: 64 * 1024 * 1024, maxTotalStreamBufferBytes: 512 * 1024 } });
    const idle = [await idleStream(served.url), await idleStream(served.url, '127.0.0.2')];
    for (const client of idle) {
      await client.until((received) => received.includes(': connected'), 'the stream opened');
      client.socket.pause();
    }
    const fields = await publishUntilCutOff(served);
    expect(String(fields['reason'])).toContain('maxTotalStreamBufferBytes');
  });

  it('HEAD /api/events answers with the stream headers and returns', async () => {
    const served = await serve({ memory: true });
    const response = await fetch(`${served.url}/api/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
  });

  it('refuses limits that are not positive whole numbers, naming the option', async () => {
    const { createRuntime } = await import('../../src/runtime/index.js');
    const { createHttpServer } = await import('../../src/server/index.js');
    const rt = await createRuntime();
    expect(() => createHttpServer(rt, { maxEventStreams: 0 })).toThrow(/maxEventStreams: must be > 0/);
    expect(() => createHttpServer(rt, { headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow(/headersTimeoutMs/);
    await rt.shutdown();
  });
});

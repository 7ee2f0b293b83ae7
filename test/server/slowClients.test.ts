import { afterEach, describe, expect, it } from 'vitest';
import type { HttpServerOptions } from '../../src/server/index.js';
import { serverPerTest } from '../support/httpServerFixture.js';
import { RawHttpClient } from '../support/rawHttpClient.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();
afterEach(() => {
  RawHttpClient.destroyAll();
});

async function connect(server: HttpServerOptions = {}): Promise<RawHttpClient> {
  const served = await serve({ memory: true, server });
  return RawHttpClient.connect(served.url);
}

const submitHead = (length: number, extra = ''): string =>
  `POST /api/submit HTTP/1.1\r\nHost: troupe\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

/** Writes `total` bytes of body in 64 KiB pieces, stopping at the first write the connection refuses; resolves with the bytes it took. */
async function sendBody(client: RawHttpClient, total: number): Promise<number> {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  try {
    while (sent < total) {
      const next = piece.subarray(0, Math.min(piece.length, total - sent));
      await client.write(next);
      sent += next.length;
    }
  } catch {
    // The server cut the connection: what was taken so far is the answer.
  }
  return sent;
}

// Timeouts are set small and only their outcome is asserted (a 408, then a closed connection).
const fast = { headersTimeoutMs: 200, requestTimeoutMs: 400 };

describe('slow and oversized requests', () => {
  it('headers that never finish get a 408 client_timeout in the API format, and the connection is closed', async () => {
    const client = await connect(fast);
    await client.write('POST /api/submit HTTP/1.1\r\nHost: troupe\r\n');
    expect(await client.status()).toBe(408);
    expect((await client.json()).error).toMatchObject({ code: 'client_timeout', field: null });
    await client.closed;
  });

  it('a body that never finishes gets a 408 client_timeout, and the connection is closed', async () => {
    const client = await connect(fast);
    await client.write(`${submitHead(100)}{"text":`);
    expect(await client.status()).toBe(408);
    expect((await client.json()).error.code).toBe('client_timeout');
    await client.closed;
  });

  it('a request without the token gets its 401 at once; its connection closes after the rest of the body', async () => {
    const client = await connect({ token: 'slow-token' });
    await client.write(`${submitHead(1000)}{"text":"`);
    expect(await client.status()).toBe(401);
    expect(client.headers()['connection']).toBe('close');
    expect((await client.json()).error.code).toBe('unauthorized');
    expect(await sendBody(client, 1000 - 9)).toBe(991);
    await client.closed;
    expect(client.ending).toBe('end');
  });

  it('a request without the token whose body never comes is cut off by the request timeout', async () => {
    const client = await connect({ token: 'slow-token', ...fast });
    await client.write(`${submitHead(1000)}{"text":"`);
    expect(await client.status()).toBe(401);
    await client.closed;
  });

  it('an unauthenticated GET is answered 401 with connection: close, and closed', async () => {
    const client = await connect({ token: 'slow-token' });
    await client.write('GET /api/agents HTTP/1.1\r\nHost: troupe\r\n\r\n');
    expect(await client.status()).toBe(401);
    expect(client.headers()['connection']).toBe('close');
    await client.closed;
    expect(client.ending).toBe('end');
  });

  it('an oversized body gets its 413 at once; the rest is read and dropped, then the connection closes cleanly', async () => {
    const client = await connect({ bodyLimitBytes: 1024, lingerBytes: 1024 * 1024 });
    await client.write(submitHead(512 * 1024));
    expect(await client.status()).toBe(413);
    expect((await client.json()).error.code).toBe('body_too_large');
    // The client may finish sending what it announced: every byte is taken, and the close is a clean end, not a reset.
    expect(await sendBody(client, 512 * 1024)).toBe(512 * 1024);
    await client.closed;
    expect(client.ending).toBe('end');
  });

  it('past lingerBytes of a refused body, the connection is cut', async () => {
    const client = await connect({ bodyLimitBytes: 1024, lingerBytes: 64 * 1024 });
    const announced = 256 * 1024 * 1024;
    await client.write(submitHead(announced));
    expect(await client.status()).toBe(413);
    expect(await sendBody(client, announced)).toBeLessThan(announced);
    await client.closed;
  });

  it('fetch (undici) reads the 413 of a body over the limit', async () => {
    const served = await serve({ memory: true, server: { bodyLimitBytes: 1024, lingerBytes: 32 * 1024 * 1024 } });
    const response = await fetch(`${served.url}/api/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(8 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
  });

  it("Node's own refusals use the API's error format: 400 for a request that is not HTTP, 431 for headers too large", async () => {
    const served = await serve({ memory: true });
    const garbage = await RawHttpClient.connect(served.url);
    await garbage.write('NOT HTTP AT ALL\r\n\r\n');
    expect(await garbage.status()).toBe(400);
    expect((await garbage.json()).error.code).toBe('bad_request');
    await garbage.closed;

    const huge = await RawHttpClient.connect(served.url);
    await huge.write(`GET /health HTTP/1.1\r\nHost: troupe\r\nX-Big: ${'a'.repeat(32 * 1024)}\r\n\r\n`);
    expect(await huge.status()).toBe(431);
    expect((await huge.json()).error.code).toBe('headers_too_large');
  });

  it('a path segment over 200 characters is a 414 url_too_long in the API format', async () => {
    const served = await serve({ memory: true });
    const response = await fetch(`${served.url}/api/messages/${'t'.repeat(300)}`);
    expect(response.status).toBe(414);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('url_too_long');
  });
});

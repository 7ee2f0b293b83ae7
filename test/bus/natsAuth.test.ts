import { fileURLToPath } from 'node:url';
import { firstValueFrom, take } from 'rxjs';
import { expect, it } from 'vitest';
import { connectNatsTransport } from '../../src/bus/index.js';
import { sequentialIds } from '../../src/ids.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { createTask } from '../../src/task/index.js';
import { describeWithNatsServer, type NatsBus, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();
const tlsFile = (name: string): string => fileURLToPath(new URL(`../fixtures/nats-tls/${name}`, import.meta.url));

/** Whether a Task one bus sends reaches the other: the connection works both ways. */
async function talks(from: NatsBus, to: NatsBus): Promise<void> {
  const arrived = firstValueFrom(to.bus.to('poet').pipe(take(1)));
  await to.transport.flush();
  from.bus.publish(createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'hello' } }, { ids, clock }));
  expect(await arrived).toMatchObject({ parameters: { text: 'hello' } });
}

/** The refusal `connectNatsTransport` rejects with, for its code and message. */
async function refusal(options: Parameters<typeof connectNatsTransport>[0]): Promise<{ code: string; message: string }> {
  const error = await connectNatsTransport(options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Error)) throw new Error('expected the connection to be refused');
  return { code: (error as Error & { code: string }).code, message: error.message };
}

describeWithNatsServer('NATS transport: credentials and TLS', () => {
  it('connects with the token the server requires; refuses, as unauthorized and never showing it, a missing or wrong one', async () => {
    const server = await startServer({ authorization: '{ token: "s3cret-nats-token" }' });
    await talks(await natsBus({ servers: server.url, token: 's3cret-nats-token' }), await natsBus({ servers: server.url, token: 's3cret-nats-token' }));
    for (const token of [undefined, 'wrong-token-1234']) {
      const refused = await refusal({ servers: server.url, connectTimeoutMs: 10_000, ...(token === undefined ? {} : { token }) });
      expect(refused.code).toBe('unauthorized');
      expect(refused.message).toContain(`NATS at ${server.url} refused this connection's credentials`);
      expect(refused.message).not.toContain('wrong-token-1234');
    }
  });

  it('connects with a user and password; a wrong password is unauthorized, and a password in the URL never shows', async () => {
    const server = await startServer({ authorization: '{ users: [ { user: "troupe", password: "pa55-word-x" } ] }' });
    await talks(
      await natsBus({ servers: server.url, user: 'troupe', password: 'pa55-word-x' }),
      await natsBus({ servers: server.url.replace('nats://', 'nats://troupe:pa55-word-x@') }),
    );
    const wrong = await refusal({ servers: server.url, user: 'troupe', password: 'not-the-password' });
    expect(wrong.code).toBe('unauthorized');
    const inUrl = await refusal({ servers: server.url.replace('nats://', 'nats://troupe:wrong-in-url@') });
    expect(inUrl.code).toBe('unauthorized');
    expect(inUrl.message).toContain(`NATS at ${server.url} refused`);
    expect(inUrl.message).not.toContain('wrong-in-url');
  });

  it('connects over TLS trusting the given authority, with a client certificate when the server verifies clients', async () => {
    const tls = `{ cert_file: "${tlsFile('server.pem')}", key_file: "${tlsFile('server-key.pem')}", ca_file: "${tlsFile('ca.pem')}", verify: true }`;
    const server = await startServer({ tls });
    const client = { caFile: tlsFile('ca.pem'), certFile: tlsFile('client.pem'), keyFile: tlsFile('client-key.pem') };
    await talks(await natsBus({ servers: server.url, tls: client }), await natsBus({ servers: server.url, tls: client }));
    // Without the authority, the server's certificate is not trusted; without a client certificate, the server refuses.
    const untrusted = await refusal({ servers: server.url, connectTimeoutMs: 1_000, tls: { certFile: client.certFile, keyFile: client.keyFile } });
    expect(untrusted).toMatchObject({ code: 'transport_unavailable', message: expect.stringContaining('over TLS') as unknown });
    const anonymous = await refusal({ servers: server.url, connectTimeoutMs: 1_000, tls: { caFile: client.caFile } });
    expect(anonymous.code).toBe('transport_unavailable');
  });

  it('refuses options that cannot work, naming them: half a login, a token and a login, half a client certificate, an unreadable file', async () => {
    const url = 'nats://127.0.0.1:1';
    await expect(connectNatsTransport({ servers: url, user: 'troupe' })).rejects.toThrow(/password: user and password go together/);
    await expect(connectNatsTransport({ servers: url, token: 't', user: 'u', password: 'p' })).rejects.toThrow(
      /token: give a token or a user and password, not both/,
    );
    await expect(connectNatsTransport({ servers: url, tls: { certFile: tlsFile('client.pem') } })).rejects.toThrow(/keyFile: certFile and keyFile go together/);
    const missing = await refusal({ servers: url, tls: { caFile: '/nonexistent/ca.pem' } });
    const twice = await refusal({ servers: 'nats://a:b@127.0.0.1:1', token: 't' });
    expect(twice).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining("credentials both in the servers' URLs and in token/user/password") as unknown,
    });
    expect(missing).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('tls.caFile: cannot read /nonexistent/ca.pem') as unknown });
  });
});

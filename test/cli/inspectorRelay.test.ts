import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type InspectorRelay, defaultInspectorRelayLimits, startInspectorRelay } from '../../src/cli/inspectorRelay.js';

const relays: InspectorRelay[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

async function relayOn(limits = defaultInspectorRelayLimits): Promise<InspectorRelay> {
  const relay = await startInspectorRelay(0, limits);
  relays.push(relay);
  return relay;
}

/** A client of the relay, recording what it receives and how it was closed. */
async function client(relay: InspectorRelay): Promise<{ socket: WebSocket; received: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(relay.socketUrl);
  sockets.push(socket);
  const received: string[] = [];
  socket.on('message', (data: Buffer) => received.push(data.toString()));
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, received, closed };
}

/** Waits until `check` holds, a turn of the event loop at a time (bounded). */
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !check(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}

describe('the inspector relay', () => {
  it('listens on loopback only', async () => {
    const relay = await relayOn();
    expect(relay.host).toBe('127.0.0.1');
    expect(await fetch(relay.pageUrl).then((response) => response.text())).toContain(relay.socketUrl);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal);
    // On a machine with another interface, the relay's port is closed there.
    if (outside !== undefined) {
      const refused = await new Promise<string>((resolve) => {
        const probe = connect(relay.port, outside.address);
        probe.once('connect', () => {
          probe.destroy();
          resolve('connected');
        });
        probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    }
  });

  it('relays each message to the other clients, and the last replayMessages to a client that connects late', async () => {
    const relay = await relayOn({ ...defaultInspectorRelayLimits, replayMessages: 3 });
    const run = await client(relay);
    const early = await client(relay);
    for (const n of [1, 2, 3, 4, 5]) run.socket.send(`event ${n}`);
    await until(() => early.received.length === 5);
    expect(early.received).toEqual(['event 1', 'event 2', 'event 3', 'event 4', 'event 5']);
    const late = await client(relay);
    await until(() => late.received.length === 3);
    expect(late.received).toEqual(['event 3', 'event 4', 'event 5']);
    expect(run.received).toEqual([]);
  });

  it('closes a client past maxClients with 1013, and refuses a port in use naming it', async () => {
    const relay = await relayOn({ ...defaultInspectorRelayLimits, maxClients: 2 });
    await client(relay);
    await client(relay);
    const third = await client(relay);
    expect(await third.closed).toBe(1013);
    const refusal = await startInspectorRelay(relay.port).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'invalid_input' });
    expect(String(refusal)).toContain(`port ${relay.port} is in use`);
  });
});

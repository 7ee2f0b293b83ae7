import { type Observable, filter, firstValueFrom, skipWhile, take, toArray } from 'rxjs';
import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask } from '../../src/task/index.js';
import { troupeErrorOf } from '../support/busFixture.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { describeWithNatsServer, type NatsBus, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';
import { TcpProxy } from '../support/tcpProxy.js';

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();
// Reconnect attempts come this often; the tests wait for the connection's events, never for time.
const reconnectWaitMs = 50;

function task(n: number): Task {
  return createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'x'.repeat(600), n } }, { ids, clock });
}

function becomes(connection$: Observable<boolean>, state: boolean): Promise<boolean> {
  return firstValueFrom(connection$.pipe(filter((connected) => connected === state)));
}

/** A receiver connected straight to a server, and a sender reaching it through a relay the test can cut. */
async function nodes(options: { whileDisconnected?: 'wait' | 'fail'; maxPendingBytes?: number } = {}): Promise<{
  sender: NatsBus;
  receiver: NatsBus;
  proxy: TcpProxy;
  logger: MemoryLogger;
}> {
  const server = await startServer();
  const proxy = await TcpProxy.start(server.port);
  later(() => proxy.cut());
  const logger = new MemoryLogger();
  const receiver = await natsBus({ servers: server.url });
  const sender = await natsBus({ servers: proxy.url, reconnectWaitMs, logger, ...options });
  return { sender, receiver, proxy, logger };
}

describeWithNatsServer('NATS transport when its connection drops', () => {
  it("holds Tasks sent while the connection is down ('wait', the default) and sends them in order once it is back", async () => {
    const { sender, receiver, proxy, logger } = await nodes();
    const arrived = firstValueFrom(receiver.bus.to('poet').pipe(take(3), toArray()));
    await receiver.transport.flush();

    const down = becomes(sender.transport.connection$, false);
    await proxy.cut();
    await down;
    expect(sender.transport.connected).toBe(false);
    const sent = [task(1), task(2), task(3)];
    for (const t of sent) sender.bus.publish(t);
    expect(sender.transport.pendingBytes).toBeGreaterThan(1800);

    await proxy.restore();
    expect((await arrived).map((t) => t.id)).toEqual(sent.map((t) => t.id));
    expect(sender.transport.connected).toBe(true);
    expect(logger.entries.map((entry) => entry.message)).toEqual(['NATS disconnected', 'NATS reconnected']);
    expect(logger.entries[1]?.fields['held']).toBe(3);
  });

  it("refuses a Task at once with transport_unavailable while the connection is down ('fail'), and sends again once it is back", async () => {
    const { sender, receiver, proxy } = await nodes({ whileDisconnected: 'fail' });
    const arrived = firstValueFrom(receiver.bus.to('poet').pipe(take(1)));
    await receiver.transport.flush();
    const down = becomes(sender.transport.connection$, false);
    await proxy.cut();
    await down;

    const error = troupeErrorOf(() => sender.bus.publish(task(1)));
    expect(error.code).toBe('transport_unavailable');
    expect(error.message).toMatch(/not sent: the connection to NATS is down \(whileDisconnected: 'fail'\)/);

    const up = becomes(sender.transport.connection$, true);
    await proxy.restore();
    await up;
    const after = task(2);
    sender.bus.publish(after);
    expect((await arrived).id).toBe(after.id);
  });

  it('counts held Tasks against maxPendingBytes, and refuses one more with transport_full', async () => {
    const { sender, proxy } = await nodes({ maxPendingBytes: 2000 });
    const down = becomes(sender.transport.connection$, false);
    await proxy.cut();
    await down;
    sender.bus.publish(task(1));
    sender.bus.publish(task(2));
    const error = troupeErrorOf(() => sender.bus.publish(task(3)));
    expect(error.code).toBe('transport_full');
    expect(error.message).toMatch(/held while it is unreachable \(maxPendingBytes 2000\)/);
  });
});

describeWithNatsServer('NATS transport across a restart of nats-server', () => {
  it('gets both buses back, with their subscriptions, and Tasks flow again', async () => {
    const server = await startServer();
    const options = { servers: server.url, reconnectWaitMs };
    const [sender, receiver] = await Promise.all([natsBus(options), natsBus(options)]);
    receiver.bus.subscribe({ pattern: 'execute' }, () => undefined);
    const arrived = firstValueFrom(receiver.bus.to('poet').pipe(take(1)));
    const back = [sender, receiver].map(({ transport }) =>
      firstValueFrom(
        transport.connection$.pipe(
          skipWhile((connected) => connected),
          filter((connected) => connected),
        ),
      ),
    );

    await server.restart();
    await Promise.all(back);
    // The client sends its subscriptions again as it reconnects; a flush makes sure the server has them.
    await Promise.all([sender.transport.flush(), receiver.transport.flush()]);
    const after = task(1);
    sender.bus.publish(after);
    expect((await arrived).id).toBe(after.id);
  });
});

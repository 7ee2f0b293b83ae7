import { firstValueFrom, take } from 'rxjs';
import { expect, it } from 'vitest';
import { type NatsTransportHandle, connectNatsTransport } from '../../src/bus/index.js';
import { ValidationError } from '../../src/errors.js';
import { sequentialIds } from '../../src/ids.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { troupeErrorOf } from '../support/busFixture.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();

function taskOf(textBytes: number, to = 'poet'): Task {
  return createTask({ from: 'user', to, action: 'execute', parameters: { text: 'x'.repeat(textBytes) } }, { ids, clock });
}

describeWithNatsServer('NATS transport limits', () => {
  it("refuses a Task larger than the server's max_payload, naming its size and the limit", async () => {
    const server = await startServer({ max_payload: 4096 });
    const { bus, transport } = await natsBus({ servers: server.url });
    expect(transport.maxPayloadBytes).toBe(4096);
    const error = troupeErrorOf(() => bus.publish(taskOf(5000)));
    expect(error.code).toBe('task_too_large');
    expect(error.message).toMatch(/^task \S+ is \d{4} bytes on the wire, more than the 4096 bytes one NATS message may carry/);
    // One that fits still goes.
    const arrived = firstValueFrom(bus.to('poet').pipe(take(1)));
    bus.publish(taskOf(1000));
    await expect(arrived).resolves.toBeDefined();
  });

  it('answers an asker at once with task_too_large when the reply is too large to send, instead of leaving it to its timeout', async () => {
    const server = await startServer({ max_payload: 4096 });
    const asker = (await natsBus({ servers: server.url })).bus;
    const answerer = (await natsBus({ servers: server.url })).bus;
    answerer.serve('poet', (task) => replyTo(task, { status: 'completed', result: { text: 'y'.repeat(5000) } }, clock));
    await (answerer.transport as NatsTransportHandle).flush();
    const reply = await asker.request(taskOf(10), { timeoutMs: 60_000 });
    expect(reply).toMatchObject({ status: 'failed', from: 'poet', result: null, error: { code: 'task_too_large' } });
    expect(reply.error?.message).toMatch(/^the answer could not be sent: task \S+ is \d{4} bytes on the wire/);
  });

  it('refuses a Task larger than maxPayloadBytes when that is below the server’s limit', async () => {
    const server = await startServer();
    const { bus, transport } = await natsBus({ servers: server.url, maxPayloadBytes: 2048 });
    expect(transport.maxPayloadBytes).toBe(2048);
    expect(troupeErrorOf(() => bus.publish(taskOf(3000))).code).toBe('task_too_large');
  });

  it('refuses a send once maxPendingBytes are unconfirmed by the server, and sends again once they are', async () => {
    const server = await startServer();
    const { bus, transport } = await natsBus({ servers: server.url, maxPendingBytes: 2000 });
    // Sent in one synchronous run: no confirmation can arrive in between.
    bus.publish(taskOf(700));
    bus.publish(taskOf(700));
    expect(transport.pendingBytes).toBeGreaterThan(1400);
    const error = troupeErrorOf(() => bus.publish(taskOf(700)));
    expect(error.code).toBe('transport_full');
    expect(error.message).toMatch(/bytes already sent are not yet confirmed by the NATS server, or held while it is unreachable \(maxPendingBytes 2000\)/);

    await transport.flush();
    await transport.flush();
    expect(transport.pendingBytes).toBe(0);
    expect(() => bus.publish(taskOf(700))).not.toThrow();
  });

  it('refuses a subscription past maxSubscriptions, while shared interests cost one', async () => {
    const server = await startServer();
    const { bus } = await natsBus({ servers: server.url, maxSubscriptions: 2 });
    bus.subscribe({ to: 'poet' }, () => undefined);
    bus.subscribe({ to: 'poet' }, () => undefined);
    const leaving = bus.subscribe({ pattern: 'node.*' }, () => undefined);
    const error = troupeErrorOf(() => bus.subscribe({ to: 'painter' }, () => undefined));
    expect(error.code).toBe('transport_full');
    expect(error.message).toMatch(/already holds 2 NATS subscriptions \(maxSubscriptions\); refused one to troupe\.default\.agent\.painter\.>/);
    leaving.unsubscribe();
    expect(() => bus.subscribe({ to: 'painter' }, () => undefined)).not.toThrow();
  });

  it('refuses bad options, naming the field', async () => {
    await expect(connectNatsTransport({ servers: 'nats://127.0.0.1:1', maxPendingBytes: 0 })).rejects.toThrow(ValidationError);
    await expect(connectNatsTransport({ servers: [] })).rejects.toThrow(/^nats\.servers/);
  });

  it('refuses to start with transport_unavailable, naming the address, when no server answers', async () => {
    const server = await startServer();
    await server.stop();
    const failed = connectNatsTransport({ servers: server.url, connectTimeoutMs: 10_000 });
    await expect(failed).rejects.toMatchObject({ code: 'transport_unavailable' });
    await expect(failed).rejects.toThrow(`cannot connect to NATS at ${server.url}`);
  });
});

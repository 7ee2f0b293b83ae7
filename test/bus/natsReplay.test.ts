import { type Msg, type NatsConnection, connect } from '@nats-io/transport-node';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DurableMailboxes } from '../../src/bus/index.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { type NatsBus, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';
import { NatsServer } from '../support/natsServer.js';

// A Task replayed on the society's subjects (the same work, published again by anyone who can
// publish there) is not run a second time: by this bus, within its replay window, and by a
// durable mailbox's stream, within its duplicate window, whichever host reads it next.

let server: NatsServer;
let raw: NatsConnection;
beforeAll(async () => {
  server = await NatsServer.start();
  raw = await connect({ servers: server.url });
});
afterAll(async () => {
  await raw.close();
  await server.dispose();
});

const natsBus = natsBusesAfterEach();
const startServer = natsServerAfterEach();
const later = cleanupAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();
let societies = 0;
const nextSociety = (): string => `replay-${++societies}`;

function work(text: string, to = 'poet'): Task {
  return createTask({ from: 'user', to, action: 'execute', parameters: { text } }, { ids, clock });
}

const wire = (id: string, task: Task): string => JSON.stringify({ v: 1, id, task });

/** A bus on `society` whose poet records every Task it is handed; `until(task)` resolves once that one arrived. */
async function poetOn(society: string, replayWindowTasks?: number): Promise<{ bus: NatsBus; given: Task[]; until: (task: Task) => Promise<unknown> }> {
  const bus = await natsBus({ servers: server.url, society, logger: new MemoryLogger(), ...(replayWindowTasks === undefined ? {} : { replayWindowTasks }) });
  const given: Task[] = [];
  bus.bus.to('poet').subscribe((task) => given.push(task));
  await bus.transport.flush();
  return { bus, given, until: (task) => firstValueFrom(bus.bus.to('poet').pipe(filter((seen) => seen.id === task.id))) };
}

describe('replayed work on NATS', () => {
  it('runs work once though it is published again, under its own sending id or another, long after', async () => {
    const society = nextSociety();
    const { bus, given, until } = await poetOn(society);
    const subject = `troupe.${society}.agent.poet.action.execute`;
    const once = work('a poem');
    raw.publish(subject, wire('forger.1', once));
    raw.publish(subject, wire('forger.2', once));
    // More sendings than the copies' window remembers (4,096), then the very same message again.
    for (let i = 0; i < 5000; i++) raw.publish(subject, wire(`other.${i}`, { ...work('note'), status: 'working' }));
    raw.publish(subject, wire('forger.1', once));
    const marker = work('the last');
    const arrived = until(marker);
    raw.publish(subject, wire('forger.3', marker));
    await arrived;

    expect(given.filter((task) => task.id === once.id)).toHaveLength(1);
    expect(bus.transport.dropped).toBe(2);
  });

  it('remembers replayWindowTasks pieces of work: older work replayed is run again', async () => {
    const society = nextSociety();
    const { given, until } = await poetOn(society, 2);
    const subject = `troupe.${society}.agent.poet.action.execute`;
    const first = work('first');
    raw.publish(subject, wire('a.1', first));
    raw.publish(subject, wire('a.2', work('second')));
    raw.publish(subject, wire('a.3', work('third')));
    raw.publish(subject, wire('a.4', first));
    const marker = work('the last');
    const arrived = until(marker);
    raw.publish(subject, wire('a.5', marker));
    await arrived;
    expect(given.filter((task) => task.id === first.id)).toHaveLength(2);
  });

  it('does not run work this bus sent itself when it comes back from the wire', async () => {
    const society = nextSociety();
    const { bus, given, until } = await poetOn(society);
    const subject = `troupe.${society}.agent.poet.action.execute`;
    const sent = work('mine');
    bus.bus.publish(sent);
    raw.publish(subject, wire('forger.1', sent));
    const marker = work('the last');
    const arrived = until(marker);
    raw.publish(subject, wire('forger.2', marker));
    await arrived;
    expect(given.filter((task) => task.id === sent.id)).toHaveLength(1);
  });

  it('keeps a replay out of a durable mailbox, so the host that reads it after a restart does not run it again', async () => {
    const jetstream = await startServer(undefined, { jetstream: true });
    const durable = { ackWaitMs: 1_000 };
    const owner = await natsBus({ servers: jetstream.url, durableMailboxes: durable, logger: new MemoryLogger() });
    const mailboxes = mailboxesOf(owner);
    await mailboxes.open('poet');
    const nc = await connect({ servers: jetstream.url });
    later(() => nc.close());
    const captured = new Promise<Msg>((resolve) =>
      nc.subscribe('troupe.default.agent.poet.action.execute', { max: 1, callback: (_error, msg) => resolve(msg) }),
    );
    await nc.flush();
    const once = work('a poem');
    owner.bus.publish(once);
    const message = await captured;

    // The first host answers it, and goes.
    const first = await natsBus({ servers: jetstream.url, durableMailboxes: durable, logger: new MemoryLogger() });
    const releaseFirst = mailboxesOf(first).hold('poet', () => true);
    const taken = await firstValueFrom(first.bus.to('poet'));
    first.bus.publish(replyTo(taken, { status: 'completed', result: { text: 'rain' } }, clock));
    await first.transport.flush();
    releaseFirst();
    await first.bus.close();

    // The exact message again, headers and all, then fresh work.
    nc.publish(message.subject, message.data, message.headers === undefined ? {} : { headers: message.headers });
    const fresh = work('another');
    owner.bus.publish(fresh);
    await owner.transport.flush();

    const second = await natsBus({ servers: jetstream.url, durableMailboxes: durable, logger: new MemoryLogger() });
    mailboxesOf(second).hold('poet', () => true);
    // The stream hands a mailbox's Tasks out in the order stored: a stored replay would come first.
    const given: string[] = [];
    const freshArrived = firstValueFrom(second.bus.to('poet').pipe(filter((task) => (given.push(task.id), task.id === fresh.id))));
    await freshArrived;
    expect(given).toEqual([fresh.id]);
  });
});

function mailboxesOf(bus: NatsBus): DurableMailboxes {
  const { mailboxes } = bus.transport;
  if (mailboxes === undefined) throw new Error('this transport has no durable mailboxes');
  return mailboxes;
}

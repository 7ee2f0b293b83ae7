import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { filter, firstValueFrom, skipWhile } from 'rxjs';
import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { describeWithNatsServer, type NatsBus, mailboxesOf, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';
import type { NatsServer } from '../support/natsServer.js';

// Durable mailboxes on a real nats-server with JetStream: what the owner opens, a host holds,
// and what becomes of a Task when its host answers, lets go, or dies.

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();
// JetStream's smallest sensible wait: a dead host's work goes to the next one a second later.
const ackWaitMs = 1000;
const isWork = (task: Task): boolean => task.status === 'submitted';

function work(text: string, to = 'poet'): Task {
  return createTask({ from: 'user', to, action: 'execute', parameters: { text } }, { ids, clock });
}

async function society(
  options: { maxStoredTasks?: number; maxDeliveries?: number } = {},
): Promise<{ server: NatsServer; owner: NatsBus; jsm: JetStreamManager }> {
  const server = await startServer(undefined, { jetstream: true });
  const owner = await natsBus({ servers: server.url, durableMailboxes: { ackWaitMs, ...options }, logger: new MemoryLogger() });
  const nc = await connect({ servers: server.url });
  later(() => nc.close());
  return { server, owner, jsm: await jetstreamManager(nc) };
}

/** A host holding `agentId`'s mailbox: resolves with the first Task that reaches the agent. */
async function host(server: NatsServer, agentId = 'poet'): Promise<{ bus: NatsBus; release: () => void; next: () => Promise<Task> }> {
  const bus = await natsBus({ servers: server.url, durableMailboxes: { ackWaitMs }, logger: new MemoryLogger() });
  const release = mailboxesOf(bus).hold(agentId, isWork);
  const received: Task[] = [];
  let wake: (() => void) | undefined;
  const subscription = bus.bus.to(agentId).subscribe((task) => {
    received.push(task);
    wake?.();
  });
  later(async () => {
    subscription.unsubscribe();
    await Promise.resolve();
  });
  const next = async (): Promise<Task> => {
    for (;;) {
      const task = received.shift();
      if (task !== undefined) return task;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return { bus, release, next };
}

/** What the agent's mailbox still holds: Tasks not yet handed out, and handed out but not acknowledged. */
async function heldBy(jsm: JetStreamManager, agentId = 'poet'): Promise<{ waiting: number; unacknowledged: number }> {
  const info = await jsm.consumers.info('troupe-default', `mailbox-${agentId}`);
  return { waiting: info.num_pending, unacknowledged: info.num_ack_pending };
}

describeWithNatsServer('durable mailboxes (NATS JetStream)', () => {
  it('keeps a Task sent while no host holds the mailbox, and hands it to the first that does', async () => {
    const { server, owner, jsm } = await society();
    await mailboxesOf(owner).open('poet');
    const sent = work('a poem');
    owner.bus.publish(sent);
    await owner.transport.flush();
    expect(await heldBy(jsm)).toEqual({ waiting: 1, unacknowledged: 0 });

    const poet = await host(server);
    expect((await poet.next()).id).toBe(sent.id);
    expect(await heldBy(jsm)).toEqual({ waiting: 0, unacknowledged: 1 });
  });

  it("keeps work unacknowledged until the agent's final reply; a host that lets go hands it to the next at once", async () => {
    const { server, owner, jsm } = await society();
    await mailboxesOf(owner).open('poet');
    const answered = firstValueFrom(owner.bus.to('user').pipe(filter((task) => task.status === 'completed')));
    const sent = work('a poem');
    owner.bus.publish(sent);

    const first = await host(server);
    expect((await first.next()).id).toBe(sent.id);
    first.release();
    const second = await host(server);
    const again = await second.next();
    expect(again.id).toBe(sent.id);
    second.bus.bus.publish(replyTo(again, { status: 'completed', result: { text: 'rain' } }, clock));
    expect((await answered).result).toEqual({ text: 'rain' });
    await second.bus.transport.flush();
    expect(await heldBy(jsm)).toEqual({ waiting: 0, unacknowledged: 0 });
    expect((await jsm.streams.info('troupe-default')).state.messages).toBe(0);
  });

  it('hands the work of a host that dies without a word to the next host once ackWaitMs runs out', async () => {
    const { server, owner } = await society();
    await mailboxesOf(owner).open('poet');
    const sent = work('a poem');
    owner.bus.publish(sent);
    const doomed = await host(server);
    expect((await doomed.next()).id).toBe(sent.id);
    // No release, no nak: the connection just goes, as with kill -9.
    await doomed.bus.bus.close();
    const heir = await host(server);
    expect((await heir.next()).id).toBe(sent.id);
  });

  it('acknowledges what is not work as it is delivered', async () => {
    const { server, owner, jsm } = await society();
    await mailboxesOf(owner).open('poet');
    const poet = await host(server);
    const note = createTask({ from: 'user', to: 'poet', action: 'node.message', parameters: { text: 'fyi' }, status: 'working' }, { ids, clock });
    owner.bus.publish(note);
    expect((await poet.next()).id).toBe(note.id);
    await poet.bus.transport.flush();
    expect(await heldBy(jsm)).toEqual({ waiting: 0, unacknowledged: 0 });
  });

  it('refuses a Task past maxStoredTasks; work is answered mailbox_full on its receiver’s behalf', async () => {
    const { owner } = await society({ maxStoredTasks: 2 });
    await mailboxesOf(owner).open('poet');
    const refusal = firstValueFrom(owner.bus.to('user').pipe(filter((task) => task.status === 'failed')));
    const sent = [work('one'), work('two'), work('three')];
    for (const task of sent) owner.bus.publish(task);
    const failed = await refusal;
    expect(failed.id).toBe(sent[2]?.id);
    expect(failed.error).toMatchObject({ code: 'mailbox_full' });
    expect(failed.error?.message).toContain('maxStoredTasks 2');
    expect(owner.transport.refusedByStream).toBe(1);
  });

  it('answers work JetStream gave up on (delivered maxDeliveries times, never answered) agent_unreachable, and drops it', async () => {
    const { server, owner, jsm } = await society({ maxDeliveries: 2 });
    await mailboxesOf(owner).open('poet');
    const refusal = firstValueFrom(owner.bus.to('user').pipe(filter((task) => task.status === 'failed')));
    const sent = work('a poem no host survives');
    owner.bus.publish(sent);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const doomed = await host(server);
      expect((await doomed.next()).id).toBe(sent.id);
      doomed.release();
    }
    const failed = await refusal;
    expect(failed).toMatchObject({ id: sent.id, from: 'poet', error: { code: 'agent_unreachable' } });
    expect(failed.error?.message).toContain('delivered 2 times (maxDeliveries)');
    expect((await jsm.streams.info('troupe-default')).state.messages).toBe(0);
  });

  it('keeps a mailbox across a nats-server restart', async () => {
    const { server, owner } = await society();
    await mailboxesOf(owner).open('poet');
    const sent = work('a poem');
    owner.bus.publish(sent);
    await owner.transport.flush();
    await server.restart();
    const poet = await host(server);
    expect((await poet.next()).id).toBe(sent.id);
  });

  it('goes on reading a mailbox across a nats-server restart', async () => {
    const { server, owner } = await society();
    await mailboxesOf(owner).open('poet');
    const poet = await host(server);
    const before = work('before');
    owner.bus.publish(before);
    expect((await poet.next()).id).toBe(before.id);
    // Back once each connection has dropped and returned (watched from before the restart, so neither is missed).
    const back = (bus: NatsBus): Promise<boolean> => firstValueFrom(bus.transport.connection$.pipe(skipWhile(Boolean), filter(Boolean)));
    const bothBack = Promise.all([back(owner), back(poet.bus)]);
    await server.restart();
    await bothBack;
    const after = work('after');
    owner.bus.publish(after);
    expect((await poet.next()).id).toBe(after.id);
  });

  it('drops a malformed message from a mailbox for good, and goes on with the next', async () => {
    const { server, owner, jsm } = await society();
    await mailboxesOf(owner).open('poet');
    const nc = await connect({ servers: server.url });
    later(() => nc.close());
    nc.publish('troupe.default.agent.poet.action.execute', 'not json');
    await nc.flush();
    const sent = work('a poem');
    owner.bus.publish(sent);
    const poet = await host(server);
    expect((await poet.next()).id).toBe(sent.id);
    expect(poet.bus.transport.dropped).toBe(1);
    expect((await heldBy(jsm)).waiting).toBe(0);
  });

  it('removes mailboxes: one, or every one of the society', async () => {
    const { owner, jsm } = await society();
    const mailboxes = mailboxesOf(owner);
    await Promise.all(['poet', 'critic', 'editor'].map((agentId) => mailboxes.open(agentId)));
    await mailboxes.remove('poet');
    await mailboxes.remove('poet');
    owner.bus.publish(work('lost', 'poet'));
    await owner.transport.flush();
    expect((await jsm.streams.info('troupe-default')).state.messages).toBe(0);
    expect(await mailboxes.removeAll()).toBe(2);
    expect(await mailboxes.removeAll()).toBe(0);
  });

  it('removes a mailbox whose removal failed while the server was down once the connection is back', async () => {
    const { server, owner } = await society();
    const mailboxes = mailboxesOf(owner);
    await Promise.all(['poet', 'critic'].map((agentId) => mailboxes.open(agentId)));
    const back = firstValueFrom(owner.transport.connection$.pipe(skipWhile(Boolean), filter(Boolean)));
    await server.stop();
    await expect(mailboxes.remove('poet')).rejects.toThrow();
    await server.restart();
    await back;
    await mailboxes.removalsSettled();
    const nc = await connect({ servers: server.url });
    later(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const left: string[] = [];
    for await (const consumer of jsm.consumers.list('troupe-default')) left.push(consumer.name);
    expect(left).toEqual(['mailbox-critic']);
  });

  it('refuses durableMailboxes on a server without JetStream, naming why', async () => {
    const server = await startServer();
    const refused = natsBus({ servers: server.url, durableMailboxes: true });
    await expect(refused).rejects.toMatchObject({ code: 'transport_unavailable', message: expect.stringContaining('JetStream') as unknown });
  });
});

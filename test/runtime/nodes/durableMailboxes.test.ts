import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { expect, it } from 'vitest';
import { type EventBus, NodeActions, NodeDirectory } from '../../../src/bus/index.js';
import { systemClock } from '../../../src/clock.js';
import { randomIds } from '../../../src/ids.js';
import { MemoryLogger } from '../../../src/logger.js';
import { NodeHost, createRuntime } from '../../../src/runtime/index.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import { createTask } from '../../../src/task/index.js';
import type { ScriptStep } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerAfterEach } from '../../support/natsBus.js';
import { until } from '../../support/runtimeFixture.js';
import { ReplyingModel } from '../../support/workerModel.js';

// An owner and its nodes on a real nats-server with JetStream, each on its own connection as
// separate processes would be: agents' Tasks wait in durable mailboxes, so a node's death loses
// no work; the agent moves to another node, which answers what the dead one never did.

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();
const heartbeatMs = 60_000;
// A dead node's unanswered work goes to the next node a second after its last sign of life.
const durableMailboxes = { ackWaitMs: 1000 };

async function society(directoryClock: SimulatedClock) {
  const server = await startServer(undefined, { jetstream: true });
  const connect = async (durable = true): Promise<EventBus> =>
    (await natsBus({ servers: server.url, society: 'durable', ...(durable ? { durableMailboxes } : {}) })).bus;
  const ownerLogger = new MemoryLogger();
  const ownerBus = await connect();
  const directory = new NodeDirectory(ownerBus, { clock: directoryClock, logger: ownerLogger });
  const rt = await createRuntime({
    bus: ownerBus,
    nodes: { directory, nodeRequestTimeoutMs: 10_000 },
    model: new ReplyingModel(() => ({ text: 'ok' })),
    logger: ownerLogger,
  });
  const hosts: NodeHost[] = [];
  // The owner first: stopping its agents, it tells their nodes, which must still be there to confirm.
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
    directory.close();
    for (const host of hosts) await host.close();
  });
  /** Starts a node hosting `roles` whose model answers with `reply`, and has it announce itself. */
  const node = async (name: string, roles: string[], reply: () => ScriptStep, options: { incarnation?: string; durable?: boolean } = {}) => {
    const bus = await connect(options.durable ?? true);
    const host = new NodeHost({ bus, node: name, roles, model: new ReplyingModel(reply), logger: new MemoryLogger() });
    hosts.push(host);
    const say = (action: string): void =>
      bus.publish(
        createTask(
          { from: name, to: 'owner', action, parameters: { node: name, roles, heartbeatMs, incarnation: options.incarnation ?? 'boot-1' } },
          { ids: randomIds, clock: systemClock },
        ),
      );
    const announce = (): void => say(NodeActions.announce);
    /** Leaves as `troupe node` does on SIGTERM: its agents stop, then the owner hears it go. */
    const leave = async (): Promise<void> => {
      await host.close();
      say(NodeActions.leave);
    };
    announce();
    await until(() => directory.node(name)?.status === 'up', `${name} to be heard`, 100_000);
    return { host, bus, announce, leave };
  };
  return { rt, node, ownerLogger, directory, server };
}

const moves = (logger: MemoryLogger): unknown[] =>
  logger.entries.filter((entry) => entry.message === 'agent moved to another node').map((entry) => entry.fields['node']);

/** A model that never answers, and says when it is first called. */
function hanging(): { reply: () => ScriptStep; called: () => boolean } {
  let called = false;
  return {
    reply: () => {
      called = true;
      return { hang: true };
    },
    called: () => called,
  };
}

describeWithNatsServer('durable mailboxes across nodes (JetStream)', () => {
  it('moves the agent of a node that died to another node with its role, which answers the work the dead one never did', async () => {
    const directoryClock = new SimulatedClock();
    const { rt, node, ownerLogger } = await society(directoryClock);
    const model = hanging();
    const doomed = await node('node-a', ['poet'], model.reply);
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    await until(() => doomed.host.hosted().includes(poet), 'the poet to be hosted on node-a', 100_000);
    const survivor = await node('node-b', ['poet'], () => ({ text: 'rain' }));
    const asked = await rt.send(poet, 'write a poem');
    await until(model.called, 'node-a to take the work', 100_000);
    // node-a dies: its connection goes without a word (no release, no answer), as with kill -9.
    await doomed.bus.close();
    // Three heartbeats missed on the directory's clock (node-b's too: it is heard again at once).
    directoryClock.advance(3 * heartbeatMs);
    survivor.announce();
    const answer = await rt.waitForAnswer(asked, { timeoutMs: 60_000 });
    expect(answer).toMatchObject({ status: 'completed', from: poet, result: { text: 'rain' } });
    // The move is logged once node-b confirms the placement, which may reach the owner after the answer.
    await until(() => moves(ownerLogger).length === 1, 'the move to be logged', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-b']);
    expect(rt.agent(poet)?.state).toBe('remote');
    expect(await rt.waitForAnswer(await rt.send(poet, 'another'), { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'rain' } });
  });

  it("stops the copy a silent node kept once it is heard again; the work that copy held goes to the agent's new node", async () => {
    const directoryClock = new SimulatedClock();
    const { rt, node, ownerLogger } = await society(directoryClock);
    const model = hanging();
    const silent = await node('node-a', ['poet'], model.reply);
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    await until(() => silent.host.hosted().includes(poet), 'the poet to be hosted on node-a', 100_000);
    const other = await node('node-b', ['poet'], () => ({ text: 'rain' }));
    const asked = await rt.send(poet, 'write a poem');
    await until(model.called, 'node-a to take the work', 100_000);
    // node-a falls silent but lives on, its poet still at work; node-b is heard again at once.
    directoryClock.advance(3 * heartbeatMs);
    other.announce();
    await until(() => moves(ownerLogger).length === 1, 'the poet to move', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-b']);
    silent.announce();
    await until(() => !silent.host.hosted().includes(poet), "node-a's copy of the poet to stop", 100_000);
    expect(await rt.waitForAnswer(asked, { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'rain' } });
  });

  it('moves an agent back onto a silent node once it is heard again, after the stale copy there stops', async () => {
    const directoryClock = new SimulatedClock();
    const { rt, node, ownerLogger } = await society(directoryClock);
    // node-a's first call hangs (its copy of the poet goes stale); its next, after the move back, answers.
    let calls = 0;
    const silent = await node('node-a', ['poet'], () => (++calls === 1 ? { hang: true } : { text: 'dew' }));
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    await until(() => silent.host.hosted().includes(poet), 'the poet to be hosted on node-a', 100_000);
    const other = await node('node-b', ['poet'], () => ({ hang: true }));
    const asked = await rt.send(poet, 'write a poem');
    await until(() => calls === 1, 'node-a to take the work', 100_000);
    directoryClock.advance(3 * heartbeatMs);
    other.announce();
    await until(() => moves(ownerLogger).length === 1, 'the poet to move to node-b', 100_000);
    // node-b dies too; with no node up, the poet waits for one.
    await other.bus.close();
    directoryClock.advance(3 * heartbeatMs);
    await until(() => rt.agent(poet)?.state === 'unreachable', 'the poet to wait for a node', 100_000);
    silent.announce();
    expect(await rt.waitForAnswer(asked, { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'dew' } });
    // The move is logged once node-a confirms the placement, which may reach the owner after the answer.
    await until(() => moves(ownerLogger).length === 2, 'the move back to be logged', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-b', 'node-a']);
    expect(silent.host.hosted()).toEqual([poet]);
  });

  it('hands the work of a node that leaves (SIGTERM) back to the mailbox: the agent moves and its new node answers it', async () => {
    const { rt, node, ownerLogger } = await society(new SimulatedClock());
    const model = hanging();
    const leaving = await node('node-a', ['poet'], model.reply);
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    await until(() => leaving.host.hosted().includes(poet), 'the poet to be hosted on node-a', 100_000);
    await node('node-b', ['poet'], () => ({ text: 'sleet' }));
    const asked = await rt.send(poet, 'write a poem');
    await until(model.called, 'node-a to take the work', 100_000);
    await leaving.leave();
    // Not canceled: answered by the node the poet moved to.
    expect(await rt.waitForAnswer(asked, { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'sleet' } });
    // The move is logged once node-b confirms the placement, which may reach the owner after the answer.
    await until(() => moves(ownerLogger).length === 1, 'the move to be logged', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-b']);
  });

  it('gives a restarted node (a new incarnation) its agents back: their mailboxes kept the work it had not answered', async () => {
    const { rt, node, ownerLogger } = await society(new SimulatedClock());
    const model = hanging();
    const first = await node('node-a', ['poet'], model.reply);
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    const asked = await rt.send(poet, 'write a poem');
    await until(model.called, 'node-a to take the work', 100_000);
    await first.bus.close();
    await node('node-a', ['poet'], () => ({ text: 'snow' }), { incarnation: 'boot-2' });
    expect(await rt.waitForAnswer(asked, { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'snow' } });
    await until(() => moves(ownerLogger).length === 1, 'the move to be logged', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-a']);
    expect(rt.agent(poet)?.status).toBe('active');
  });

  it('keeps an agent with no node for its role waiting, with its mailbox, until one is heard', async () => {
    const directoryClock = new SimulatedClock();
    const { rt, node, ownerLogger } = await society(directoryClock);
    const doomed = await node('node-a', ['poet'], () => ({ hang: true }));
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    await until(() => doomed.host.hosted().includes(poet), 'the poet to be hosted on node-a', 100_000);
    await doomed.bus.close();
    directoryClock.advance(3 * heartbeatMs);
    await until(() => rt.agent(poet)?.state === 'unreachable', 'the poet to be unreachable', 100_000);
    // Sent while no node hosts it: not refused, kept.
    const asked = await rt.send(poet, 'write a poem');
    expect(ownerLogger.entries.map((entry) => entry.message)).toContain('no node up hosts the role of an agent whose node was lost: its mailbox waits for one');
    await node('node-c', ['poet'], () => ({ text: 'hail' }));
    expect(await rt.waitForAnswer(asked, { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'hail' } });
    await until(() => moves(ownerLogger).length === 1, 'the move to be logged', 100_000);
    expect(moves(ownerLogger)).toEqual(['node-c']);
  });

  it('fails the spawn on a node whose transport keeps no durable mailboxes, naming the flag', async () => {
    const { rt, node } = await society(new SimulatedClock());
    await node('node-a', ['poet'], () => ({ text: 'ok' }), { durable: false });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    await expect(rt.spawn({ role: 'poet' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('--durable-mailboxes') as unknown,
    });
  });

  it("removes an earlier owner process's mailboxes as a new one starts: it restores their agents itself", async () => {
    const { rt, node, server } = await society(new SimulatedClock());
    await node('node-a', ['poet'], () => ({ text: 'ok' }));
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    await rt.spawn({ role: 'poet' });
    const nc = await connect({ servers: server.url });
    later(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const mailboxes = async (): Promise<number> => (await jsm.consumers.list('troupe-durable').next()).length;
    expect(await mailboxes()).toBe(1);
    // The owner restarted (kill -9 and back): a new runtime on the society, made owner of its nodes.
    const { bus } = await natsBus({ servers: server.url, society: 'durable', durableMailboxes });
    const logger = new MemoryLogger();
    const directory = new NodeDirectory(bus, { clock: new SimulatedClock(), logger });
    const restarted = await createRuntime({ bus, nodes: { directory }, model: new ReplyingModel(() => ({ text: 'ok' })), logger });
    later(async () => {
      await restarted.shutdown({ drainTimeoutMs: 0 });
      directory.close();
    });
    await until(
      () => logger.entries.some((entry) => entry.message === "removed an earlier owner process's durable mailboxes"),
      'the old mailboxes to go',
      100_000,
    );
    expect(await mailboxes()).toBe(0);
  });

  it("refuses whileUnreachable 'fail' with durable mailboxes: it would answer work the mailboxes keep", async () => {
    const server = await startServer(undefined, { jetstream: true });
    const { bus } = await natsBus({ servers: server.url, society: 'refused', durableMailboxes });
    const directory = new NodeDirectory(bus, { clock: new SimulatedClock(), logger: new MemoryLogger() });
    later(async () => {
      directory.close();
      await Promise.resolve();
    });
    await expect(createRuntime({ bus, nodes: { directory, whileUnreachable: 'fail' } })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

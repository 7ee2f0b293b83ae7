import { type NatsConnection, connect } from '@nats-io/transport-node';
import { filter, firstValueFrom, take } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectNatsTransport, subjectOf } from '../../src/bus/index.js';
import { subscriptionSubjectOf } from '../../src/bus/transports/natsSubjects.js';
import { ValidationError } from '../../src/errors.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, type TaskInit, createTask } from '../../src/task/index.js';
import { NatsServer } from '../support/natsServer.js';
import { describeWithNatsServer, natsBusesAfterEach } from '../support/natsBus.js';

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
const clock = new SimulatedClock();
const ids = sequentialIds();
let societies = 0;
const nextSociety = (): string => `wire-${++societies}`;

function task(init: Partial<TaskInit> = {}): Task {
  return createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'hi' }, ...init }, { ids, clock });
}

describeWithNatsServer('NATS subjects', () => {
  it('puts society, target and action in the subject, and maps interests onto NATS wildcards', () => {
    expect(subjectOf({ to: 'poet-1', action: 'node.tool_call' }, 'demo')).toBe('troupe.demo.agent.poet-1.action.node.tool_call');
    expect(subscriptionSubjectOf({ target: 'poet-1' }, 'demo')).toBe('troupe.demo.agent.poet-1.>');
    expect(subscriptionSubjectOf({ pattern: '*' }, 'demo')).toBe('troupe.demo.agent.*.action.>');
    expect(subscriptionSubjectOf({ pattern: 'node.*' }, 'demo')).toBe('troupe.demo.agent.*.action.node.>');
    expect(subscriptionSubjectOf({ pattern: 'node.message' }, 'demo')).toBe('troupe.demo.agent.*.action.node.message');
  });

  it('refuses a target or society that would carry subject tokens into a subscription', async () => {
    const { bus } = await natsBus({ servers: server.url, society: nextSociety() });
    for (const target of ['a.>', 'a b', '*', 'x.y']) {
      expect(() => bus.subscribe({ to: target }, () => undefined), target).toThrow(ValidationError);
    }
    await expect(connectNatsTransport({ servers: server.url, society: 'a.>' })).rejects.toThrow(/nats\.society: must be 1–64 letters/);
  });

  it('publishes a Task on its subject, where a plain NATS client can read it', async () => {
    const society = nextSociety();
    const { bus, transport } = await natsBus({ servers: server.url, society });
    const seen = raw.subscribe(`troupe.${society}.>`, { max: 1 });
    await raw.flush();
    const sent = task({ to: 'poet-1', action: 'node.message' });
    bus.publish(sent);
    await transport.flush();
    for await (const msg of seen) {
      expect(msg.subject).toBe(`troupe.${society}.agent.poet-1.action.node.message`);
      expect(msg.json()).toMatchObject({ v: 1, task: sent });
    }
  });
});

describeWithNatsServer('NATS routing', () => {
  it('brings a bus only the Tasks it declared an interest in, and none of another society', async () => {
    const society = nextSociety();
    const sender = await natsBus({ servers: server.url, society });
    const receiver = await natsBus({ servers: server.url, society }, { debugRing: 16 });
    const stranger = await natsBus({ servers: server.url, society: nextSociety() });
    stranger.bus.on('*').subscribe(() => undefined);
    const arrived = firstValueFrom(receiver.bus.to('poet').pipe(take(1)));
    await Promise.all([receiver.transport.flush(), stranger.transport.flush()]);
    sender.bus.publish(task({ to: 'painter' }));
    sender.bus.publish(task({ to: 'poet' }));
    await arrived;
    await stranger.transport.flush();
    expect(receiver.bus.recent().map((t) => t.to)).toEqual(['poet']);
    expect(stranger.bus.recent()).toEqual([]);
  });
});

describeWithNatsServer('malformed messages from the wire', () => {
  it('drops each, naming its subject and what is wrong, counts it, and keeps delivering', async () => {
    const society = nextSociety();
    const logger = new MemoryLogger();
    const warnClock = new SimulatedClock();
    const { bus, transport } = await natsBus({ servers: server.url, society, logger, clock: warnClock, dropWarningIntervalMs: 1_000 });
    const delivered: Task[] = [];
    bus.on('*').subscribe((arrived) => delivered.push(arrived));
    await transport.flush();
    const subject = `troupe.${society}.agent.poet.action.execute`;
    const valid = task();
    const wrongTo = { ...JSON.parse(JSON.stringify(valid)), to: 'painter' } as Task;
    const sends: [string, string][] = [
      [subject, '{not json'],
      [subject, '"a string"'],
      [subject, JSON.stringify({ v: 2, id: 'x', task: valid })],
      [subject, JSON.stringify({ v: 1, id: 'x', task: { ...valid, status: 'done' } })],
      [subject, JSON.stringify({ v: 1, id: 'y', task: wrongTo })],
      [`troupe.${society}.agent.poet.action.execute.extra`, JSON.stringify({ v: 1, id: 'z', task: valid })],
    ];
    // Each in a quiet interval of its own, so each is logged at once, with its reason.
    for (const [index, [on, payload]] of sends.entries()) {
      const marker = task();
      const arrived = firstValueFrom(bus.on('*').pipe(filter((seen) => seen.id === marker.id)));
      raw.publish(on, payload);
      raw.publish(subject, JSON.stringify({ v: 1, id: `marker-${index}`, task: marker }));
      await arrived;
      warnClock.advance(1_000);
    }

    expect(delivered).toHaveLength(sends.length);
    expect(transport.dropped).toBe(6);
    const reasons = logger.entries.map((entry) => [entry.message, entry.fields['subject'], entry.fields['kind'], entry.fields['reason']]);
    expect(reasons).toEqual([
      ['dropped a message from NATS', subject, 'not_json', expect.stringMatching(/^not JSON/)],
      ['dropped a message from NATS', subject, 'not_troupe', expect.stringMatching(/^not a troupe message/)],
      ['dropped a message from NATS', subject, 'not_troupe', expect.stringMatching(/^not a troupe message: v /)],
      ['dropped a message from NATS', subject, 'not_a_task', expect.stringMatching(/^not a valid Task: task\.status/)],
      ['dropped a message from NATS', subject, 'wrong_subject', `the Task belongs on troupe.${society}.agent.painter.action.execute`],
      ['dropped a message from NATS', `${subject}.extra`, 'wrong_subject', `the Task belongs on ${subject}`],
    ]);
  });

  it('warns of a flood in one line per interval, counting each message once though overlapping subscriptions hand it over twice', async () => {
    const society = nextSociety();
    const logger = new MemoryLogger();
    const warnClock = new SimulatedClock();
    const { bus, transport } = await natsBus({ servers: server.url, society, logger, clock: warnClock, dropWarningIntervalMs: 10_000 });
    // Two subscriptions that both match the poet's subject: NATS hands each message to both.
    bus.to('poet').subscribe(() => undefined);
    const valid = task();
    const arrived = firstValueFrom(bus.on('*').pipe(filter((seen) => seen.id === valid.id)));
    await transport.flush();
    const subject = `troupe.${society}.agent.poet.action.execute`;
    for (let i = 0; i < 5000; i++) raw.publish(subject, i % 2 === 0 ? `{garbage ${i}` : JSON.stringify({ v: 1, id: `g${i}`, task: { nonsense: i } }));
    raw.publish(subject, JSON.stringify({ v: 1, id: 'valid', task: valid }));
    await arrived;

    expect(transport.dropped).toBe(5000);
    expect(logger.entries.map((entry) => [entry.level, entry.message, entry.fields['kind'], entry.fields['subject']])).toEqual([
      ['warn', 'dropped a message from NATS', 'not_json', subject],
    ]);
    warnClock.advance(10_000);
    expect(logger.entries).toHaveLength(2);
    const summary = logger.entries[1]?.fields;
    expect(summary).toMatchObject({ more: 4999, byKind: { not_json: 2499, not_a_task: 2500 }, intervalMs: 10_000, example: { kind: 'not_a_task', subject } });
    expect(String((summary?.['example'] as Record<string, unknown>)['reason'])).toMatch(/^not a valid Task/);
    // A quiet interval: nothing more to say.
    warnClock.advance(10_000);
    expect(logger.entries).toHaveLength(2);
  });
});

import { filter, firstValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile, rawNatsClientForFile } from '../support/natsBus.js';

// One peer flooding an agent with work over NATS: it gets its share, the rest is refused by name,
// and another peer's work still reaches the agent and is answered.

const serverOf = natsServerForFile();
const rawOf = rawNatsClientForFile(serverOf);
const natsBus = natsBusesAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();

function work(text: string, from: string): Task {
  return createTask({ from, to: 'poet', action: 'execute', parameters: { text } }, { ids, clock });
}

/** Resolves once `count` Tasks reached `forger` on the plain client, with them. */
function repliesTo(forger: string, count: number): Promise<Task[]> {
  const replies: Task[] = [];
  return new Promise((resolve) => {
    rawOf().subscribe(`troupe.limits.agent.${forger}.>`, {
      callback: (_error, msg) => {
        replies.push(msg.json<{ task: Task }>().task);
        if (replies.length === count) resolve(replies);
      },
    });
  });
}

describeWithNatsServer('NATS intake limits per sender', () => {
  it('refuses a flood of 500 pieces of work from one sender past maxWorkPerSender, naming the limit, while another sender’s work is answered', async () => {
    const logger = new MemoryLogger();
    const receiver = await natsBus({ servers: serverOf().url, society: 'limits', maxWorkPerSender: 10, logger });
    // The poet answers once let go: until then every piece of work it took holds its sender's share.
    const taken: Task[] = [];
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    receiver.bus.serve('poet', async (task) => {
      taken.push(task);
      await released;
      return replyTo(task, { status: 'completed', result: { text: `done: ${task.id}` } }, clock);
    });
    const honest = await natsBus({ servers: serverOf().url, society: 'limits' });
    await receiver.transport.flush();

    const refusals = repliesTo('forger', 490);
    await rawOf().flush();
    const flood = Array.from({ length: 500 }, (_, i) => work(`forged ${i}`, 'forger'));
    for (const [i, task] of flood.entries()) rawOf().publish('troupe.limits.agent.poet.action.execute', JSON.stringify({ v: 1, id: `flooder.${i}`, task }));
    const refused = await refusals;

    expect(refused.every((reply) => reply.status === 'failed' && reply.error?.code === 'transport_full')).toBe(true);
    expect(refused[0]?.error?.message).toMatch(/^task \S+ refused: sender flooder already has 10 Tasks unanswered on this bus \(maxWorkPerSender\)$/);
    expect(new Set(refused.map((reply) => reply.id))).toEqual(new Set(flood.slice(10).map((task) => task.id)));

    const answers = Promise.all(Array.from({ length: 5 }, (_, i) => honest.bus.request(work(`honest ${i}`, 'honest'), { timeoutMs: 600_000 })));
    letGo();
    const answered = await answers;
    expect(answered.map((reply) => reply.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    expect(taken).toHaveLength(15);
    // 490 refusals are one warning line, not 490.
    expect(logger.entries.filter((entry) => entry.message === 'dropped a message from NATS')).toHaveLength(1);
    expect(receiver.transport.dropped).toBe(490);
  });

  it('gives a sender its share back as its work is answered', async () => {
    const receiver = await natsBus({ servers: serverOf().url, society: 'limits', maxWorkPerSender: 1 });
    receiver.bus.serve('poet', (task) => replyTo(task, { status: 'completed', result: { text: 'ok' } }, clock));
    const sender = await natsBus({ servers: serverOf().url, society: 'limits' });
    await receiver.transport.flush();
    for (let i = 0; i < 3; i++) {
      const reply = await sender.bus.request(work(`one at a time ${i}`, 'asker'), { timeoutMs: 600_000 });
      expect(reply.status).toBe('completed');
    }
  });

  it('takes refused work when it is sent again once its sender has a share: a refusal is not a replay', async () => {
    const receiver = await natsBus({ servers: serverOf().url, society: 'limits', maxWorkPerSender: 1 });
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    receiver.bus.serve('poet', async (task) => {
      await released;
      return replyTo(task, { status: 'completed', result: { text: 'ok' } }, clock);
    });
    await receiver.transport.flush();
    const [first, second] = [work('first', 'retrier'), work('second', 'retrier')];
    const replies = repliesTo('retrier', 3);
    await rawOf().flush();
    const send = (id: string, task: Task): void => rawOf().publish('troupe.limits.agent.poet.action.execute', JSON.stringify({ v: 1, id, task }));
    const seen = (task: Task, status: string): Promise<Task> =>
      firstValueFrom(receiver.bus.on('*').pipe(filter((seenTask) => seenTask.id === task.id && seenTask.status === status)));
    const refused = seen(second, 'failed');
    const firstAnswered = seen(first, 'completed');
    send('retrier.1', first);
    send('retrier.2', second);
    await refused;
    letGo();
    // The first is answered (its share given back) before the second is sent again.
    await firstAnswered;
    send('retrier.3', second);
    expect((await replies).map((reply) => [reply.id, reply.status])).toEqual([
      [second.id, 'failed'],
      [first.id, 'completed'],
      [second.id, 'completed'],
    ]);
  });

  it('refuses work past maxWorkFromWire over every sender together', async () => {
    const receiver = await natsBus({ servers: serverOf().url, society: 'limits', maxWorkFromWire: 3 });
    receiver.bus.serve('poet', () => new Promise<undefined>(() => undefined));
    await receiver.transport.flush();
    const refusals = repliesTo('forger2', 2);
    await rawOf().flush();
    for (let i = 0; i < 5; i++)
      rawOf().publish('troupe.limits.agent.poet.action.execute', JSON.stringify({ v: 1, id: `peer${i}.0`, task: work(`${i}`, 'forger2') }));
    const refused = await refusals;
    expect(refused.map((reply) => reply.error?.message)).toEqual([
      expect.stringMatching(/this bus already has 3 Tasks from NATS unanswered \(maxWorkFromWire\)$/),
      expect.stringMatching(/\(maxWorkFromWire\)$/),
    ]);
  });
});

import { type Msg, connect } from '@nats-io/transport-node';
import { filter, firstValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import {
  describeWithNatsServer,
  type NatsBus,
  mailboxesOf,
  natsBusesAfterEach,
  natsServerAfterEach,
  natsServerForFile,
  rawNatsClientForFile,
} from '../support/natsBus.js';

// A Task replayed on the society's subjects (the same work, published again by anyone who can
// publish there) is not run a second time: by this bus, within its replay window, and by a
// durable mailbox's stream, within its duplicate window, whichever host reads it next.

const serverOf = natsServerForFile();
const rawOf = rawNatsClientForFile(serverOf);

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

interface Poet {
  readonly bus: NatsBus;
  /** Every Task the poet was handed. */
  readonly given: Task[];
  /** Publishes each sending from a plain client on the poet's subject, and resolves once all have arrived (a last piece of work shows it). */
  readonly receive: (sendings: readonly (readonly [string, Task])[]) => Promise<void>;
}

/** A bus on a society of its own whose poet records every Task it is handed. */
async function poet(replayWindowTasks?: number, logger = new MemoryLogger()): Promise<Poet> {
  const society = nextSociety();
  const bus = await natsBus({
    servers: serverOf().url,
    society,
    logger,
    ...(replayWindowTasks === undefined ? {} : { replayWindowTasks }),
  });
  const given: Task[] = [];
  bus.bus.to('poet').subscribe((task) => given.push(task));
  await bus.transport.flush();
  const subject = `troupe.${society}.agent.poet.action.execute`;
  const receive = async (sendings: readonly (readonly [string, Task])[]): Promise<void> => {
    const last = work('the last');
    const arrived = firstValueFrom(bus.bus.to('poet').pipe(filter((seen) => seen.id === last.id)));
    for (const [id, task] of [...sendings, ['last.1', last] as const]) rawOf().publish(subject, JSON.stringify({ v: 1, id, task }));
    await arrived;
  };
  return { bus, given, receive };
}

const timesGiven = (poet: Poet, task: Task): number => poet.given.filter((given) => given.id === task.id).length;

describeWithNatsServer('replayed work on NATS', () => {
  it('runs work once though it is published again, under its own sending id or another, long after', async () => {
    const poem = await poet();
    const once = work('a poem');
    // More sendings than the copies' window remembers (4,096) between the first and the very same message again.
    const between = Array.from({ length: 5000 }, (_, i) => [`other.${i}`, { ...work('note'), status: 'working' }] as const);
    await poem.receive([['forger.1', once], ['forger.2', once], ...between, ['forger.1', once]]);
    expect(timesGiven(poem, once)).toBe(1);
    expect(poem.bus.transport.dropped).toBe(2);
  });

  it('remembers replayWindowTasks pieces of work: older work replayed is run again', async () => {
    const poem = await poet(2);
    const first = work('first');
    await poem.receive([
      ['a.1', first],
      ['a.2', work('second')],
      ['a.3', work('third')],
      ['a.4', first],
    ]);
    expect(timesGiven(poem, first)).toBe(2);
  });

  it('does not run work this bus sent itself when it comes back from the wire', async () => {
    const poem = await poet();
    const sent = work('mine');
    poem.bus.bus.publish(sent);
    await poem.receive([['forger.1', sent]]);
    expect(timesGiven(poem, sent)).toBe(1);
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

describeWithNatsServer('work a store says was given (a runtime with a data dir lends its log)', () => {
  const givenBefore = work('given before a restart');
  const record = { given: (agentId: string, taskId: string) => agentId === 'poet' && taskId === givenBefore.id };

  it('drops work the record names, as a replay', async () => {
    const logger = new MemoryLogger();
    const poem = await poet(undefined, logger);
    poem.bus.transport.consultGivenWork?.(record);
    await poem.receive([['forger.1', givenBefore]]);
    expect(timesGiven(poem, givenBefore)).toBe(0);
    expect(poem.bus.transport.dropped).toBe(1);
    expect(logger.entries.find((entry) => entry.message === 'dropped a message from NATS')?.fields).toMatchObject({ kind: 'replayed', rememberedBy: 'store' });
  });

  it('runs that work once the record is withdrawn', async () => {
    const poem = await poet();
    poem.bus.transport.consultGivenWork?.(record)();
    await poem.receive([['forger.1', givenBefore]]);
    expect(timesGiven(poem, givenBefore)).toBe(1);
  });

  it('takes work as new when the record fails, saying so', async () => {
    const logger = new MemoryLogger();
    const poem = await poet(undefined, logger);
    poem.bus.transport.consultGivenWork?.({
      given: () => {
        throw new Error('store closed');
      },
    });
    await poem.receive([['forger.1', givenBefore]]);
    expect(timesGiven(poem, givenBefore)).toBe(1);
    expect(logger.entries.map((entry) => entry.message)).toContain('could not read whether work from NATS was given before');
  });
});

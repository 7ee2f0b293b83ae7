import { type NatsConnection, connect } from '@nats-io/transport-node';
import { NatsServer } from '../../test/support/natsServer.js';
import { EventBus, type Task, createTask, sequentialIds, systemClock } from '../../src/index.js';
import { connectNatsTransport } from '../../src/nodes.js';
import { sized } from './benchSize.js';
import { type Round, type Timing, compare, elapsedMs, opsPerSecond, percentile } from './measure.js';
import { startReadyProcess } from './readyProcess.js';
import { type Row, duration, rate } from './report.js';

// Issue 15: request/reply across processes through troupe's NATS transport against the raw NATS
// client (goal ≥ 0.5× its rate), and 1 KB Task throughput between two connections.
const REQUESTS = sized(2_000, 20);
const TASKS = sized(20_000, 100);
// Two rounds at least, so what only a round after the first meets (a replay) shows in a smoke run too.
const options = sized({ warmup: 1, rounds: 5 }, { warmup: 1, rounds: 1 });
/** How long a throughput round may wait for its last message: past it, the round fails saying how many came. */
const ARRIVAL_DEADLINE_MS = 60_000;

/** A round of `count` sequential requests, each one's latency kept (ms). */
function sequentialRequests(count: number, ask: () => Promise<unknown>, latencies: number[]): Round<undefined> {
  return {
    run: async () => {
      for (let i = 0; i < count; i++) {
        const start = process.hrtime.bigint();
        await ask();
        latencies.push(elapsedMs(start));
      }
    },
  };
}

const ids = sequentialIds();
const echoTask = (): Task => createTask({ from: 'bench', to: 'echo', action: 'execute', parameters: { text: 'ping' } }, { ids, clock: systemClock });
const kilobyteTask = (n: number): Task =>
  createTask({ from: 'bench', to: 'sink', action: 'node.message', parameters: { text: 'x'.repeat(1024), n } }, { ids, clock: systemClock });

async function requestReply(url: string, society: string, raw: NatsConnection): Promise<Row[]> {
  const stopWorker = await startReadyProcess('natsWorker', [url, society]);
  const bus = new EventBus({ transport: await connectNatsTransport({ servers: url, society, name: 'bench-asker' }) });
  const [troupe, bare, troupeLatencies, rawLatencies] = await requestRounds(bus, raw, stopWorker);
  const perSecond = (timing: Timing): number => opsPerSecond(REQUESTS, timing.medianMs);
  const p50p99 = (samples: readonly number[]): string => `p50 ${duration(percentile(samples, 50))} · p99 ${duration(percentile(samples, 99))}`;
  return [
    {
      benchmark: 'NATS request/reply across processes',
      troupe: rate(perSecond(troupe), 'req'),
      raw: rate(perSecond(bare), 'req'),
      ratio: troupe.medianMs / bare.medianMs,
      notes: `${REQUESTS} sequential requests a round to a server in another process; troupe = bus.request of a new Task (serve replies with replyTo), raw = nc.request of the same bytes echoed; goal ≥ 0.5× raw's rate`,
    },
    {
      benchmark: 'NATS request/reply latency',
      troupe: p50p99(troupeLatencies),
      raw: p50p99(rawLatencies),
      ratio: percentile(troupeLatencies, 50) / percentile(rawLatencies, 50),
      notes: 'the same requests, every round; ratio of p50s',
    },
  ];
}

/** The same requests to an `echo` that reads its durable mailbox (JetStream), against the raw client's core request: the price of durability. */
async function durableRequestReply(url: string, society: string, raw: NatsConnection): Promise<Row> {
  const transport = await connectNatsTransport({ servers: url, society, name: 'bench-asker', durableMailboxes: true });
  await transport.mailboxes?.open('echo');
  const stopWorker = await startReadyProcess('natsWorker', [url, society, 'durable']);
  const bus = new EventBus({ transport });
  const [troupe, bare, troupeLatencies] = await requestRounds(bus, raw, stopWorker);
  return {
    benchmark: 'NATS request/reply, durable mailbox',
    troupe: `${rate(opsPerSecond(REQUESTS, troupe.medianMs), 'req')} · p50 ${duration(percentile(troupeLatencies, 50))}`,
    raw: rate(opsPerSecond(REQUESTS, bare.medianMs), 'req'),
    ratio: troupe.medianMs / bare.medianMs,
    notes: `as above, the server's Tasks stored by JetStream (file storage), read from its mailbox and acknowledged with each reply; raw = core nc.request (nothing stored): the ratio is the price of durability`,
  };
}

/** Sequential request rounds through `bus` and through the raw client; the worker is stopped and the bus closed after. */
async function requestRounds(bus: EventBus, raw: NatsConnection, stopWorker: () => Promise<void>): Promise<[Timing, Timing, number[], number[]]> {
  // The asker holds its own mailbox subscription, as an agent does, so a request adds no SUB/UNSUB.
  bus.subscribe({ to: 'bench' }, () => undefined);
  await bus.transport.flush();
  const payload = new TextEncoder().encode(JSON.stringify({ v: 1, id: 'x', task: echoTask() }));
  const troupeLatencies: number[] = [];
  const rawLatencies: number[] = [];
  let timings: [Timing, Timing];
  try {
    timings = await compare(
      sequentialRequests(REQUESTS, () => bus.request(echoTask(), { timeoutMs: 10_000 }), troupeLatencies),
      sequentialRequests(REQUESTS, () => raw.request('bench.raw.echo', payload, { timeout: 10_000 }), rawLatencies),
      options,
    );
  } finally {
    await bus.close();
    await stopWorker();
  }
  return [...timings, troupeLatencies, rawLatencies];
}

/**
 * A round publishing `TASKS` messages on one connection that ends when another has received them
 * all. The messages are made in its untimed setup, new every round: a transport drops work it was
 * given before as a replay, so Tasks sent again would never arrive.
 */
function throughputRound<M>(make: () => M[], publish: (message: M) => void, arrived: () => Promise<void>): Round<{ messages: M[]; allArrived: Promise<void> }> {
  return {
    // Wrapped: a promise returned by setup would be awaited before the round starts.
    setup: () => ({ messages: make(), allArrived: arrived() }),
    run: async ({ messages, allArrived }) => {
      for (const message of messages) publish(message);
      await allArrived;
    },
  };
}

function countTo(what: string, expected: number): { readonly tick: () => void; readonly next: () => Promise<void> } {
  let received = 0;
  let done: () => void = () => undefined;
  return {
    tick: () => {
      if (++received === expected) done();
    },
    next: () =>
      new Promise<void>((resolve, reject) => {
        received = 0;
        const deadline = setTimeout(
          () => reject(new Error(`${what}: ${received} of ${expected} messages arrived in ${ARRIVAL_DEADLINE_MS / 1000} s`)),
          ARRIVAL_DEADLINE_MS,
        );
        done = () => {
          clearTimeout(deadline);
          resolve();
        };
      }),
  };
}

async function kilobyteThroughput(url: string, society: string, raw: NatsConnection): Promise<Row> {
  const connectBus = async (name: string): Promise<EventBus> =>
    new EventBus({ transport: await connectNatsTransport({ servers: url, society, name, maxPendingBytes: 256 * 1024 * 1024 }) });
  const [sender, receiver] = await Promise.all([connectBus('bench-sender'), connectBus('bench-receiver')]);
  const rawReceiver = await connect({ servers: url });
  const tasks = (): Task[] => Array.from({ length: TASKS }, (_, n) => kilobyteTask(n));
  const payloads = (): Uint8Array[] => tasks().map((task) => new TextEncoder().encode(JSON.stringify({ v: 1, id: task.id, task })));
  const troupeCount = countTo('troupe throughput', TASKS);
  const rawCount = countTo('raw throughput', TASKS);
  receiver.subscribe({ to: 'sink' }, troupeCount.tick);
  rawReceiver.subscribe('bench.raw.sink', { callback: rawCount.tick });
  await Promise.all([receiver.transport.flush(), rawReceiver.flush()]);
  let timings: [Timing, Timing];
  try {
    timings = await compare(
      throughputRound(tasks, (task) => sender.publish(task), troupeCount.next),
      throughputRound(payloads, (payload) => raw.publish('bench.raw.sink', payload), rawCount.next),
      options,
    );
  } finally {
    await Promise.all([sender.close(), receiver.close(), rawReceiver.close()]);
  }
  const [troupe, bare] = timings;
  return {
    benchmark: 'NATS 1 KB Task throughput',
    troupe: rate(opsPerSecond(TASKS, troupe.medianMs), 'Tasks'),
    raw: rate(opsPerSecond(TASKS, bare.medianMs), 'msgs'),
    ratio: troupe.medianMs / bare.medianMs,
    notes: `${TASKS / 1000}k Tasks of 1 KB text a round (new ones each round, made untimed: the same work again is dropped as a replay), one connection to another through nats-server; troupe = bus.publish (encoded) → a subscriber of the target (each checked against the Task schema); raw = nc.publish of the same Tasks encoded beforehand → a subscription`,
  };
}

/** Issue 15's rows: troupe's NATS transport against the raw NATS client, on a nats-server started for it. */
export async function natsTransport(): Promise<Row[]> {
  const server = await NatsServer.start(undefined, { jetstream: true });
  const raw = await connect({ servers: server.url, name: 'bench-raw' });
  try {
    return [
      ...(await requestReply(server.url, 'bench', raw)),
      await durableRequestReply(server.url, 'bench-durable', raw),
      await kilobyteThroughput(server.url, 'bench-throughput', raw),
    ];
  } finally {
    await raw.close();
    await server.dispose();
  }
}

/**
 * The far side of the NATS benchmark, in a process of its own: a troupe bus on NATS serving
 * `echo` (each request answered `completed` with its own text) and a raw NATS subscription on
 * `bench.raw.echo` answering each request with its own bytes. Prints `{"ready":true}` once both
 * are in place on the server, and exits when its stdin closes. With `durable`, `echo` reads its
 * Tasks from its durable mailbox (JetStream; the asker opens it first), as an agent on a node does.
 * Usage: natsWorker <nats url> <society> [durable]
 */
import { connect } from '@nats-io/transport-node';
import { EventBus, replyTo, systemClock } from '../../src/index.js';
import { connectNatsTransport } from '../../src/nodes.js';

const [url, society, mode] = process.argv.slice(2);
if (url === undefined || society === undefined) throw new Error('usage: natsWorker <nats url> <society> [durable]');

const durable = mode === 'durable';
const transport = await connectNatsTransport({ servers: url, society, name: 'bench-worker', ...(durable ? { durableMailboxes: true } : {}) });
transport.mailboxes?.hold('echo', (task) => task.status === 'submitted');
const bus = new EventBus({ transport });
bus.serve('echo', (task) => replyTo(task, { status: 'completed', result: task.parameters['text'] ?? null }, systemClock));

const raw = await connect({ servers: url, name: 'bench-worker-raw' });
raw.subscribe('bench.raw.echo', {
  callback: (_error, msg) => {
    msg.respond(msg.data);
  },
});

await Promise.all([transport.flush(), raw.flush()]);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.stdin.resume();
process.stdin.once('end', () => {
  void Promise.all([bus.close(), raw.drain()]).then(() => process.exit(0));
});

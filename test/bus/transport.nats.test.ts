import { afterAll, beforeAll } from 'vitest';
import { NatsServer } from '../support/natsServer.js';
import { describeWithNatsServer, natsBusesAfterEach } from '../support/natsBus.js';
import { describeTransportContract } from '../support/transportContract.js';

const natsBus = natsBusesAfterEach();
let societies = 0;

describeWithNatsServer('NATS transport', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await NatsServer.start();
  });
  afterAll(() => server.dispose());

  // Two nodes of one society on a real nats-server: two connections, two buses. Each test has a
  // society of its own, so no test sees another's Tasks.
  describeTransportContract('NATS', async () => {
    const society = `contract-${++societies}`;
    const sender = await natsBus({ servers: server.url, society, name: 'sender' });
    const receiver = await natsBus({ servers: server.url, society, name: 'receiver' });
    return { sender: sender.bus, receiver: receiver.bus };
  });

  // The same contract with durable mailboxes on (JetStream): Tasks to agents without a mailbox
  // travel as before, each publish now asking the stream for its receipt.
  let jetStreamServer: NatsServer;
  beforeAll(async () => {
    jetStreamServer = await NatsServer.start(undefined, { jetstream: true });
  });
  afterAll(() => jetStreamServer.dispose());

  describeTransportContract('NATS with durable mailboxes', async () => {
    const society = `contract-durable-${++societies}`;
    const sender = await natsBus({ servers: jetStreamServer.url, society, name: 'sender', durableMailboxes: true });
    const receiver = await natsBus({ servers: jetStreamServer.url, society, name: 'receiver', durableMailboxes: true });
    return { sender: sender.bus, receiver: receiver.bus };
  });
});

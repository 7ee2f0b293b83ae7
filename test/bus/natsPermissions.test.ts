import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerAfterEach } from '../support/natsBus.js';

// docs/distributed.md's way to close the trust gap, on a real nats-server: a society's own account, and a
// gateway user that may send execute Tasks to root only and read the answers to itself.

const startServer = natsServerAfterEach();
const natsBus = natsBusesAfterEach();
const clock = new SimulatedClock();
const ids = sequentialIds();

const accounts = `{
  DEMO: {
    users: [
      { user: owner, password: "owner-secret", permissions: { publish: ["troupe.demo.>"], subscribe: ["troupe.demo.>", "_INBOX.>"] } }
      { user: gateway, password: "gateway-secret", permissions: { publish: ["troupe.demo.agent.root.action.execute"], subscribe: ["troupe.demo.agent.gateway.>"] } }
    ]
  }
}`;

function work(to: string, text: string): Task {
  return createTask({ from: 'gateway', to, action: 'execute', parameters: { text } }, { ids, clock });
}

describeWithNatsServer('NATS permissions for a society', () => {
  it('lets a gateway user send work to root and read its answers, and keeps its Tasks to any other agent off the society', async () => {
    const server = await startServer({ accounts });
    const owner = await natsBus({ servers: server.url, society: 'demo', user: 'owner', password: 'owner-secret' });
    const reachedPoet: Task[] = [];
    owner.bus.to('poet').subscribe((task) => reachedPoet.push(task));
    owner.bus.serve('root', (task) => replyTo(task, { status: 'completed', result: { text: `done: ${task.id}` } }, clock));
    await owner.transport.flush();
    const gateway = await natsBus({ servers: server.url, society: 'demo', user: 'gateway', password: 'gateway-secret' });

    expect((await gateway.bus.request(work('root', 'first'), { timeoutMs: 600_000 })).status).toBe('completed');
    // Refused by the server; the gateway's next Task, on the same connection, comes after it.
    gateway.bus.publish(work('poet', 'forged'));
    expect((await gateway.bus.request(work('root', 'second'), { timeoutMs: 600_000 })).status).toBe('completed');
    await owner.transport.flush();
    expect(reachedPoet).toEqual([]);
  });
});

import { EventBus, OfflineModel, createLogger, createRuntime, createTask, randomIds, systemClock } from 'troupe';
import { NodeActions, NodeDirectory, NodeHost, connectNatsTransport } from 'troupe/nodes';
import { firstValueFrom } from 'rxjs';

// A nats-server must be running: `nats-server -a 127.0.0.1 -p 4222`.
const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const logger = createLogger('warn');

// The owner: its directory hears the nodes announce themselves (nodes.announce, every heartbeat).
const ownerBus = new EventBus({ transport: await connectNatsTransport({ servers, society: 'demo' }) });
const directory = new NodeDirectory(ownerBus, { clock: systemClock, logger });
const rt = await createRuntime({ bus: ownerBus, nodes: { directory } });

// A node, in another process or on another host; `troupe node` runs one and announces it every heartbeat.
const nodeBus = new EventBus({ transport: await connectNatsTransport({ servers, society: 'demo' }) });
const host = new NodeHost({ bus: nodeBus, node: 'node-a', roles: ['coder'], model: new OfflineModel(), logger });
const heard = firstValueFrom(directory.changes$);
const announcement = { node: 'node-a', roles: ['coder'], heartbeatMs: 60_000, incarnation: randomIds.task() };
nodeBus.publish(createTask({ from: 'node-a', to: 'owner', action: NodeActions.announce, parameters: announcement }, { ids: randomIds, clock: systemClock }));
await heard;

// A coder spawned by the owner is placed on node-a; its Tasks cross NATS like any other.
await rt.createRole({ name: 'coder', prompt: 'You write code.' });
const coder = await rt.spawn({ role: 'coder' });
console.log(rt.agent(coder)?.state, host.hosted()); // 'remote', [coder]
const messageId = await rt.send(coder, 'write a haiku about rain');
console.log((await rt.waitForAnswer(messageId, { timeoutMs: 30_000 })).status);

// The owner first: stopping its agents, it tells their node, which must still be there to confirm.
await rt.shutdown();
await host.close();
directory.close();
await Promise.all([ownerBus.close(), nodeBus.close()]);

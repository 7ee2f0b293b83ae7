/**
 * An owner with a data dir on core NATS that takes one piece of work from a peer on another
 * connection and kills itself (-9) the instant its answer leaves: run by
 * natsReplayRestart.test.ts. Prints `sent <base64>`, the exact message the peer published, so the
 * test can publish it again to the owner's next process.
 */
import { connect } from '@nats-io/transport-node';
import { EventBus, connectNatsTransport } from '../../src/bus/index.js';
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { createTask, finalStatuses } from '../../src/task/index.js';
import { ReplyingModel } from '../support/workerModel.js';

const [servers = '', society = '', dataDir = ''] = process.argv.slice(2);
const transport = await connectNatsTransport({ servers, society, logger: new MemoryLogger() });
const rt = await createRuntime({ bus: new EventBus({ transport }), dataDir, model: new ReplyingModel(() => ({ text: 'a poem' })), logger: new MemoryLogger() });
await rt.restored();
await transport.flush();
const work = createTask({ from: 'gateway', to: 'root', action: 'execute', parameters: { text: 'a poem about rain' } }, { ids: randomIds, clock: systemClock });
rt.bus.to('gateway').subscribe((answer) => {
  if (answer.id === work.id && finalStatuses.has(answer.status)) process.kill(process.pid, 'SIGKILL');
});
const message = JSON.stringify({ v: 1, id: 'gateway.1', task: work });
process.stdout.write(`ready\nsent ${Buffer.from(message).toString('base64')}\n`);
const peer = await connect({ servers });
peer.publish(`troupe.${society}.agent.root.action.execute`, message);

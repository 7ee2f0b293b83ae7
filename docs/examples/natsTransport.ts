import { EventBus, createRuntime } from 'troupe';
import { connectNatsTransport } from 'troupe/nodes';

// A nats-server must be running: `nats-server -a 127.0.0.1 -p 4222`.
const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

const transport = await connectNatsTransport({ servers, society: 'demo' });
const rt = await createRuntime({ bus: new EventBus({ transport }) });

// Any process with a bus on the same society sees root's Tasks, and could send it work.
const taskId = await rt.submit('write a haiku about rain');
console.log((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status);

await rt.shutdown();
await rt.bus.close(); // closes the NATS connection too

/**
 * The node serving the ReAct benchmark's `echo` to its loop over NATS, in a process of its own:
 * a NodeHost (`tool-node`) whose served tools are `echo`. Prints `{"ready":true}` once it is
 * subscribed on the server, and exits when its stdin closes.
 * Usage: toolNodeWorker <nats url> <society>
 */
import { EventBus, defineTool } from '../../src/index.js';
import { NodeHost, connectNatsTransport } from '../../src/nodes.js';
import { echoTool } from './reactLoops.js';

const [url, society] = process.argv.slice(2);
if (url === undefined || society === undefined) throw new Error('usage: toolNodeWorker <nats url> <society>');

const transport = await connectNatsTransport({ servers: url, society, name: 'bench-tool-node' });
const bus = new EventBus({ transport });
const host = new NodeHost({ bus, node: 'tool-node', roles: ['none'], servedTools: [echoTool(defineTool)] });
await transport.flush();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.stdin.resume();
process.stdin.once('end', () => {
  void host
    .close()
    .then(() => bus.close())
    .then(() => process.exit(0));
});

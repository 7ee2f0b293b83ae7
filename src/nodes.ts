/**
 * troupe/nodes — one society spread over processes: the NATS transport its bus runs on, the
 * node host that runs agents for the owner runtime, the directory of nodes, tools served by
 * another process, and remote A2A agents as tools or as roles. A single-process society needs none of it (see `troupe`).
 *
 * @example
 * import { EventBus, createRuntime } from 'troupe';
 * import { connectNatsTransport } from 'troupe/nodes';
 * const transport = await connectNatsTransport({ servers: 'nats://127.0.0.1:4222', society: 'demo' });
 * const rt = await createRuntime({ bus: new EventBus({ transport }) });
 */
export {
  connectNatsTransport,
  NodeDirectory,
  type NodeDirectoryOptions,
  type KnownNode,
  type NodeChange,
  NodeActions,
  NodeAnnouncementSchema,
  type NodeAnnouncement,
  type NatsTransportHandle,
  type NatsTransportOptions,
} from './bus/index.js';
export { NodeHost, type NodeHostOptions, type SocietyHosting } from './runtime/index.js';
export { remoteTool, serveTools, toolCallAction, type ServeToolsOptions } from './tools/index.js';
export { a2aAgentTool, a2aRemoteRole, type A2aAgentOptions, type A2aRemoteRoleOptions } from './a2a/index.js';

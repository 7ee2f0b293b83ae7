export { EventBus, type EventBusOptions, type BusFault, type Selector } from './eventBus.js';
export { parsePattern, matches, type ActionPattern } from './pattern.js';
export { DebugRing } from './debugRing.js';
export { InProcessTransport, type DurableMailboxes, type GivenWork, type Transport, type Interest } from './transport.js';
export { subjectOf } from './transports/natsSubjects.js';
export { connectNatsTransport, type NatsTransportHandle } from './transports/connectNats.js';
export type { NatsTransportOptions } from './transports/natsTransportOptions.js';
export { NodeActions, NodeAnnouncementSchema, type NodeAnnouncement, maxRolesPerNode, ownerAgentId } from './nodeAnnouncement.js';
export { type KnownNode, type NodeChange, NodeDirectory, type NodeDirectoryOptions } from './nodeDirectory.js';

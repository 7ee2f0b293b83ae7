export { EventBus, type BusFault, type EventBusOptions, type RequestOptions, type Selector } from './eventBus.js';
export { parsePattern, matches, prefixesOf, type ActionPattern } from './pattern.js';
export { InProcessTransport, subjectOf, type Transport, type Interest } from './transport.js';

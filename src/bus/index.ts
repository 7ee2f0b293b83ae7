export { EventBus, type BusFault, type Selector } from './eventBus.js';
export { parsePattern, matches } from './pattern.js';
export { InProcessTransport, subjectOf, type Transport, type Interest } from './transport.js';

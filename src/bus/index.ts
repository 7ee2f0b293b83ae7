export { EventBus, type BusFault, type Selector } from './eventBus.js';
export { parsePattern, matches, type ActionPattern } from './pattern.js';
export { DebugRing } from './debugRing.js';
export { InProcessTransport, subjectOf, type Transport, type Interest } from './transport.js';

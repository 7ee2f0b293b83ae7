export { HybridRouter, type RouterParts, type RoutingChooser } from './hybridRouter.js';
export { modelChooser } from './modelChooser.js';
export type { RoutingCandidate } from './routingCandidate.js';
export { type RoutingDecision, RoutingDecisionSchema, type ScoredCandidate } from './routingDecision.js';
export { type RouterOptions, RouterOptionsSchema } from './routingOptions.js';

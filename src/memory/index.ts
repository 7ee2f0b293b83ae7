// One agent's memory (issue 14): L1–L3 here, L4 through the agent's FactStore.
export { AgentMemory } from './agentMemory.js';
export { type CompactionHelpers, type HelperBounds, type ModelHelpers, extractiveHelpers, helpersWithFallback } from './compactionHelpers.js';
export type { SummaryEntry, TaskEntry } from './entries.js';
export { entriesDbName } from './entryStore.js';
export { extractiveFacts } from './extractiveFacts.js';
export { extractiveSummary } from './extractiveSummary.js';
export type { CompressionReport, Fact, FactHit, NewFact } from './facts/factSchema.js';
export type { MemoryFacts } from './memoryFacts.js';
export { type LinkedNode, type NodeLink, type RetrievalGraph, nodeVisibleTo } from './facts/retrievalGraph.js';
export { baseImportance, effectiveImportance } from './importance.js';
export { type MemoryLimits, type MemoryLimitsInput, intakeBound, memoryLimits } from './limits.js';
export { remembers } from './remembers.js';
export type { MemoryReader } from './memoryReader.js';
export { StoredMemory } from './storedMemory.js';
export { eraseStoredMemories } from './erasedMemory.js';

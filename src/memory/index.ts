// One agent's memory (issue 14): L1–L3 here, L4 through the agent's FactStore.
export { AgentMemory, type AgentMemoryOptions, type MemoryCounts, type ObserveOutcome, type SessionFilter } from './agentMemory.js';
export type { CompactionReport, MoveCounts } from './compactionContext.js';
export {
  type CompactionHelpers,
  type HelperBounds,
  type ModelHelpers,
  type SummaryDraft,
  extractiveHelpers,
  helpersWithFallback,
} from './compactionHelpers.js';
export type { MemoryEntry, SummaryEntry, SummarySource, TaskEntry } from './entries.js';
export { entriesDbName } from './entryStore.js';
export { extractiveFacts, type ExtractiveFactsOptions } from './extractiveFacts.js';
export { extractiveSummary } from './extractiveSummary.js';
export type { Fact, FactHit, FactScope, MemoryFacts, NewFact } from './factsPort.js';
export { baseImportance, effectiveImportance } from './importance.js';
export { MemoryLimitsSchema, memoryLimits, type MemoryLimits, type MemoryLimitsInput } from './limits.js';
export { remembers } from './remembers.js';
export type { MemoryReader, ReaderFilter } from './memoryReader.js';
export { StoredMemory, type StoredMemoryOptions } from './storedMemory.js';

export { Runtime, createRuntime, societyOf } from './runtime.js';
export type { AgentView, RuntimeOptions } from './runtimeOptions.js';
export type { MemoryOptions } from './memory/memoryOptions.js';
export type { AgentPage, AgentQuery } from './agentPage.js';
export type { OutputHandler } from './userEndpoint.js';
export type { Society, SocietyHosting } from './society.js';
export { NodeHost, type NodeHostOptions } from './nodes/nodeHost.js';
export type { AgentState, ModelUsage } from './agent/index.js';
export type { TerminateOptions, UserTerminateOptions } from './terminateOptions.js';
export type { RestoreState } from './backgroundRestore.js';
export {
  maxMemoryPageSize,
  maxMemorySearchChars,
  maxMemorySearchResults,
  MemoryQuerySchema,
  MemoryViewSchema,
  MemoryTierSchema,
  type MemoryItem,
  type MemoryQueryInput,
  type MemoryTier,
  type MemoryView,
} from './memory/memoryQuery.js';

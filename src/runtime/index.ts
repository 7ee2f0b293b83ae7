export { Runtime, createRuntime } from './runtime.js';
export { replayRuntime, type Replay, type ReplayOptions, type ReplayReport } from './replayRuntime.js';
export type { RecordOption } from '../replay/index.js';
export { societyOf, type SocietyView } from './societyView.js';
export type { RuntimeOptions } from './runtimeOptions.js';
export type { TracingOptions } from './agent/tracing.js';
export type { HandoffFilter, HandoffInfo } from './agent/handoffDesk.js';
export type { AgentView } from './views/agentViews.js';
export type { RuntimeGauges } from './society/runtimeGauges.js';
export type { Measurement } from './society/measurements.js';
export type { MemoryOptions } from './memory/memoryOptions.js';
export type { AgentPage, AgentQuery } from './views/agentPage.js';
export type { OutputHandler } from './userEndpoint.js';
export type { SocietyHosting } from './society/society.js';
export { NodeHost, type NodeHostOptions } from './nodes/nodeHost.js';
export type { AgentState, ModelUsage } from './agent/index.js';
export type { TerminateOptions, UserTerminateOptions } from './society/terminateOptions.js';
export type { RestoreState } from './society/backgroundRestore.js';
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
} from './views/memoryQuery.js';
export { GraphQuerySchema, GraphViewSchema, maxGraphPageSize, maxGraphViewDepth, type GraphQueryInput, type GraphView } from './views/graphView.js';
export {
  ImportItemSchema,
  ImportReportSchema,
  RememberInputSchema,
  RememberedFactSchema,
  type ImportItem,
  type ImportReport,
  type RememberInput,
  type RememberedFactView,
} from './memory/programMemory.js';

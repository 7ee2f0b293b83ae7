/**
 * troupe — an actor-model runtime for societies of LLM agents.
 *
 * @example
 * import { createRuntime } from 'troupe';
 * const rt = await createRuntime();
 * rt.bus.on('agent.*').subscribe((task) => console.log(task.action, task.from));
 * const taskId = await rt.submit('write a haiku about rain');
 * console.log(await rt.waitForAnswer(taskId, { timeoutMs: 60_000 }));
 * await rt.shutdown();
 *
 * A society spread over processes (NATS, node hosts, remote tools) is `troupe/nodes`.
 */
import './checkZodPeer.js';
export {
  createRuntime,
  Runtime,
  type AgentView,
  type AgentPage,
  type AgentQuery,
  type RuntimeOptions,
  type MemoryOptions,
  type OutputHandler,
  type AgentState,
  type ModelUsage,
  type TerminateOptions,
  type UserTerminateOptions,
  type RestoreState,
  type RuntimeGauges,
  type Measurement,
  type HandoffFilter,
  type HandoffInfo,
  MemoryQuerySchema,
  type MemoryQueryInput,
  GraphQuerySchema,
  GraphViewSchema,
  type GraphQueryInput,
  type GraphView,
  ImportItemSchema,
  ImportReportSchema,
  RememberInputSchema,
  RememberedFactSchema,
  type ImportItem,
  type ImportReport,
  type RememberInput,
  type RememberedFactView,
  type MemoryView,
  type MemoryItem,
  type MemoryTier,
  replayRuntime,
  type Replay,
  type ReplayOptions,
  type ReplayReport,
  type RecordOption,
} from './runtime/index.js';
export type { RunTape } from './replay/index.js';
export type { Role, AgentRecord, Termination } from './org/index.js';
export type { ShutdownSummary } from '../machines/runtime.machine.js';
export type {
  Interceptor,
  InterceptorContext,
  InterceptorVerdict,
  ModelCallRequest,
  ToolCallContext,
  TurnAnswer,
  TurnPrompt,
} from './runtime/agent/interceptors/interceptor.js';
export { modelGuardrail, type Guardrail, type GuardrailVerdict } from './runtime/agent/interceptors/guardrail.js';
export type { TracingOptions } from './runtime/index.js';
export type { TraceCarrier } from './traceContext.js';
export {
  EventBus,
  InProcessTransport,
  subjectOf,
  type Transport,
  type DurableMailboxes,
  type GivenWork,
  type Interest,
  type BusFault,
  type Selector,
} from './bus/index.js';
export {
  Actions,
  TaskSchema,
  TaskStatusSchema,
  AgentIdSchema,
  createTask,
  parseTask,
  replyTo,
  taskText,
  ApprovalDecisionSchema,
  awaitsApproval,
  type Task,
  type TaskStatus,
  type TaskInit,
  type JsonValue,
  type Approval,
  type ApprovalDecision,
  type ApprovalDecisionInput,
} from './task/index.js';
export type { ApprovalEvent } from './runtime/approvals/approvalDesk.js';
export {
  OfflineModel,
  OpenAIModel,
  OpenAIEmbeddings,
  RetryingModel,
  modelFromEnv,
  embeddingsFromEnv,
  defaultRetryPolicy,
  type ModelClient,
  type OpenAIModelOptions,
  type OpenAIEmbeddingsOptions,
  type RetryPolicy,
  type ChatRequest,
  type ChatDelta,
  type ModelCallMeasure,
} from './llm/index.js';
export type { ChatMessage, ToolCall, ToolDefinition, ToolPolicy, TerminationMode, AgentSettings, AgentLimits, HandoffMark } from './task/index.js';
export { ToolAnnotationsSchema, toolAnnotations, type ToolAnnotations, type ResolvedToolAnnotations } from './tools/index.js';
export {
  defineSkill,
  loadSkillFolders,
  SkillActions,
  type Skill,
  type SkillInput,
  type SkillLimits,
  type SkillLimitsInput,
  type SkillMatch,
  type SkillProblem,
  type SkillSource,
  type SkillHub,
} from './skills/index.js';
export {
  defineTool,
  toolFromFunction,
  ToolRegistry,
  metaTools,
  type Tool,
  type ToolResult,
  type ToolContext,
  type Artifact,
  type RemoteRole,
} from './tools/index.js';
export type { ArtifactRef, StoredArtifact } from './org/index.js';
export { HashedNgramEmbedder, type HashedNgramEmbedderOptions } from './memory/embedding/hashedNgramEmbedder.js';
export { WordVectorEmbedder, type WordVectorEmbedderOptions } from './memory/embedding/wordVectorEmbedder.js';
export type { Embedder } from './memory/embedding/embedder.js';
export {
  HybridRouter,
  type RouterOptions,
  type RouterParts,
  type RoutingCandidate,
  type RoutingChooser,
  type RoutingDecision,
  type ScoredCandidate,
  modelChooser,
} from './routing/index.js';
export { TroupeError, ValidationError, RequestTimeoutError, type ErrorCode } from './errors.js';
export { systemClock, type Clock } from './clock.js';
export { randomIds, sequentialIds, type IdGenerator } from './ids.js';
export { createLogger, MemoryLogger, type Logger } from './logger.js';
export {
  openGraphMemory,
  GraphRuleError,
  GraphLimitsSchema,
  GraphNodeSchema,
  GraphEdgeSchema,
  EventStatusSchema,
  NodeKindSchema,
  EdgeTypeSchema,
  allowedEdgeTypes,
  edgeTopology,
  edgeAllowed,
  blockersOf,
  isBlocked,
  subtasksOf,
  parentTaskOf,
  contextNotesOf,
  referencingEvents,
  recentNodes,
  topologicalOrder,
  neighbourhood,
  NeighbourhoodQuerySchema,
  rankNeighbourhood,
  RankQuerySchema,
  type GraphMemory,
  type GraphMemoryOptions,
  type Link,
  type LinkOutcome,
  type ReadonlyGraph,
  type GraphChange,
  type GraphRule,
  type GraphLimits,
  type GraphLimitOptions,
  type GraphNode,
  type EventNode,
  type NoteNode,
  type EventStatus,
  type NodeKind,
  type NewEvent,
  type NewNote,
  type NodePatch,
  type GraphEdge,
  type EdgeKey,
  type EdgeType,
  type ArchivedOption,
  type ViewOptions,
  type RecentNodes,
  type TopologicalOrderOptions,
  type NeighbourhoodQuery,
  type Neighbourhood,
  type RankQuery,
  type RankedNode,
} from './graph/index.js';

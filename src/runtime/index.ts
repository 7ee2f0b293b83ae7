export { Runtime, createRuntime } from './runtime.js';
export { rootPrompt, stateName, type AgentView, type RuntimeOptions } from './runtimeOptions.js';
export { RuntimeConfigSchema, type RuntimeConfig, type RuntimeConfigInput } from './config.js';
export { UserEndpoint, type OutputHandler } from './userEndpoint.js';
export { Society, reservedIds } from './society.js';
export type { AgentRecord, AgentStatus, ModelUsage, Termination } from './agentCell.js';
export type { Role } from './roleBook.js';
export { Conversation } from './conversation.js';

export { Runtime, createRuntime, societyOf } from './runtime.js';
export type { AgentView, RuntimeOptions } from './runtimeOptions.js';
export type { AgentPage, AgentQuery } from './agentPage.js';
export type { OutputHandler } from './userEndpoint.js';
export type { Society } from './society.js';
export { type AgentState, type ModelUsage, Conversation } from './agent/index.js';
export type { TerminateOptions } from './terminateOptions.js';
export type { RestoreState } from './backgroundRestore.js';

export { Runtime, createRuntime, societyOf } from './runtime.js';
export { rootPrompt, type AgentView, type RuntimeOptions } from './runtimeOptions.js';
export { RuntimeConfigSchema, type RuntimeConfig, type RuntimeConfigInput } from './config.js';
export { UserEndpoint, type OutputHandler } from './userEndpoint.js';
export { Society, reservedIds } from './society.js';
export { type AgentState, type ModelUsage, Conversation, stateName } from './agent/index.js';

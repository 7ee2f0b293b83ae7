export { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage, asksForWork } from './agent.js';
export type { AgentState } from './agentState.js';
export { Conversation } from './conversation.js';

export { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage } from './agent.js';
export { type AgentState, stateName } from './agentState.js';
export { Conversation, compressMessages, summaryHeader, lengthWarning } from './conversation.js';

export { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage } from './agent.js';
export type { AgentState } from './agentState.js';

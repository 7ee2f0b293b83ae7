export { Agent, type AgentEnvironment, type AgentMachine, type ModelUsage } from './agent.js';
export { asksForWork } from '../../task/index.js';
export type { AgentState } from './agentState.js';

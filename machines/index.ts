export { agentMachine, type AgentContext, type AgentEvent, type AgentInput, type ThinkOutput, type TurnInput } from './agent.machine.js';
export { userEndpointMachine, type UserEndpointEvent } from './userEndpoint.machine.js';
export { runtimeMachine, type RuntimeEvent, type ShutdownSummary } from './runtime.machine.js';
export { memoryCompactorMachine, type CompactorEvent, type CompactorInput, type CompactionBatchOutput } from './memoryCompactor.machine.js';

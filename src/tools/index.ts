export * from './tool.js';
export type { SocietyPort, PlanStepInput, RecordedPlan } from './societyPort.js';
export { ToolRegistry, type ToolPolicy } from './registry.js';
export { runToolCall } from './runToolCall.js';
export { toolFromFunction } from './toolFromFunction.js';
export * from './metaTools.js';

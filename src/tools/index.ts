export * from './tool.js';
export type { SocietyPort, CompressibleConversation } from './societyPort.js';
export type { PlanStepInput, RecordedPlan } from './societyServices.js';
export { ToolRegistry } from './registry.js';
export { runToolCall, type RunToolOptions } from './runToolCall.js';
export { toolFromFunction, asToolResult, type ToolFunction, type ToolFunctionReturn } from './toolFromFunction.js';
export * from './metaTools.js';
export { compressContextTool, defaultKeepRecent } from './compressContextTool.js';
export { createPlanTool, maxPlanSteps } from './createPlanTool.js';

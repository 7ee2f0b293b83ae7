export * from './tool.js';
export type { SocietyPort } from './societyPort.js';
export { ToolRegistry, type ToolPolicy } from './registry.js';
export { runToolCall, type RunToolOptions } from './runToolCall.js';
export * from './metaTools.js';

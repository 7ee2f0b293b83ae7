export * from './tool.js';
export type {
  SocietyPort,
  RoleRequest,
  SpawnCallRef,
  CompressibleConversation,
  FactSearchRequest,
  FoundFact,
  GraphAccess,
  GraphOperation,
  RememberRequest,
  RememberedFact,
  RoutedWork,
  WorkRequest,
} from './societyPort.js';
export { ToolRegistry, type ToolExecution, type WhenAbandoned } from './registry.js';
export { remoteRolesByName } from './remoteRoles.js';
export { runToolCall } from './runToolCall.js';
export { toolFromFunction } from './toolFromFunction.js';
export * from './metaTools.js';
export * from './mcp/index.js';
export { remoteTool, serveTools, toolCallAction, type ServeToolsOptions } from './remoteTools.js';
export { ToolAnnotationsSchema, resolveToolAnnotations, toolAnnotations, type ToolAnnotations, type ResolvedToolAnnotations } from './toolAnnotations.js';

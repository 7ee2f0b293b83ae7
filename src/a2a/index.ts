export { createA2aService, idOf, type A2aLimitOptions, type A2aService, type JsonRpcAnswer } from './a2aService.js';
export { a2aAgentTool, type A2aAgentOptions } from './a2aAgentTool.js';
export { a2aRemoteRole, type A2aRemoteRoleOptions } from './a2aRemoteRole.js';

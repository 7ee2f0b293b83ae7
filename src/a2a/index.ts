export { createA2aService, idOf, type A2aLimitOptions, type A2aService, type JsonRpcAnswer } from './a2aService.js';

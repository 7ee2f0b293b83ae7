import '../checkZodPeer.js';
export { createHttpServer, type HttpServer, type HttpServerOptions } from './httpServer.js';
export type { A2aLimitOptions } from '../a2a/index.js';
export { HttpError, statusOf, toResponse } from './httpErrors.js';
export { Redactor, redactedMark } from './redact.js';
export { isLoopback } from './auth.js';
export { openApiDocument } from './openapi.js';
export * from './schemas.js';

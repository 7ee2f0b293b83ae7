import type { FastifyInstance } from 'fastify';
import { TroupeError, ValidationError } from '../errors.js';
import { ImportReportSchema, MemoryViewSchema, type Runtime } from '../runtime/index.js';
import { type Redactor, parseOrThrow } from '../task/index.js';
import { HttpError } from './httpErrors.js';
import { responseSchema } from './responseSchema.js';
import { AgentIdParamsSchema, AgentMemoryQuerySchema, FactParamsSchema, ForgetFactReplySchema, MemoryImportEnvelopeSchema } from './schemas.js';

/** The runtime's names for what the route calls otherwise (`rt.memory`'s `search` is the query's `q`, its agent the path's `id`). */
const requestNames: Readonly<Record<string, string>> = { search: 'q', agentId: 'id' };

/** A refusal of `rt.memory` (or `rt.graph`), naming the request's field rather than the runtime's. */
export function asRequestError(error: unknown): unknown {
  if (error instanceof ValidationError) {
    const field = requestNames[error.field] ?? error.field;
    return new HttpError(error.code, field === error.field ? error.message : `${field}${error.message.slice(error.field.length)}`, { field, cause: error });
  }
  if (error instanceof TroupeError && (error.code === 'unknown_agent' || error.code === 'agent_terminated')) {
    return new HttpError(error.code, error.message, { field: 'id', cause: error });
  }
  return error;
}

const memoryReply = responseSchema(MemoryViewSchema);
const importReply = responseSchema(ImportReportSchema);
const forgetReply = responseSchema(ForgetFactReplySchema);

/**
 * `GET /api/agents/:id/memory`: what an agent remembers (`rt.memory`), redacted with the
 * server's redactor (the runtime's secrets and the token) before a text is cut. Written by the
 * serializer compiled from the view's schema, so nothing it does not name leaves the server.
 */
export function registerMemoryRoute(app: FastifyInstance, runtime: Runtime, redactor: Redactor): void {
  app.get('/api/agents/:id/memory', { schema: { response: { 200: memoryReply } } }, async (request) => {
    const { id } = parseOrThrow(AgentIdParamsSchema, request.params);
    const { q, ...query } = parseOrThrow(AgentMemoryQuerySchema, request.query);
    try {
      return await runtime.memory(id, { ...query, ...(q === undefined ? {} : { search: q }) }, { redactor });
    } catch (error) {
      throw asRequestError(error);
    }
  });

  // Facts and turns into the agent's L4 (`rt.importMemory`): all of them, or none when one is bad.
  app.post('/api/agents/:id/memory', { schema: { response: { 200: importReply } } }, async (request) => {
    const { id } = parseOrThrow(AgentIdParamsSchema, request.params);
    const { items } = parseOrThrow(MemoryImportEnvelopeSchema, request.body);
    try {
      return await runtime.importMemory(id, items as Parameters<Runtime['importMemory']>[1]);
    } catch (error) {
      throw asRequestError(error);
    }
  });

  app.delete('/api/agents/:id/memory/facts/:factId', { schema: { response: { 200: forgetReply } } }, async (request) => {
    const { id, factId } = parseOrThrow(FactParamsSchema, request.params);
    try {
      await runtime.forget(id, factId);
      return { agentId: id, forgotten: factId };
    } catch (error) {
      if (error instanceof TroupeError && error.code === 'unknown_fact') throw new HttpError(error.code, error.message, { field: 'factId', cause: error });
      throw asRequestError(error);
    }
  });
}

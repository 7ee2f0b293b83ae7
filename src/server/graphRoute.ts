import type { FastifyInstance } from 'fastify';
import { TroupeError } from '../errors.js';
import { type GraphQueryInput, GraphViewSchema, type Runtime } from '../runtime/index.js';
import { type Redactor, parseOrThrow } from '../task/index.js';
import { HttpError } from './httpErrors.js';
import { asRequestError } from './memoryRoute.js';
import { responseSchema } from './responseSchema.js';
import { AgentIdParamsSchema, GraphNodeParamsSchema, GraphNodeQuerySchema, GraphNodesQuerySchema } from './schemas.js';

const graphReply = responseSchema(GraphViewSchema);

/** `rt.graph`, its refusals naming the request's field: an unknown node is a 404 on `nodeId`. */
async function viewOf(runtime: Runtime, id: string, query: GraphQueryInput, redactor: Redactor): Promise<unknown> {
  try {
    return await runtime.graph(id, query, { redactor });
  } catch (error) {
    if (error instanceof TroupeError && error.code === 'unknown_node') throw new HttpError(error.code, error.message, { field: 'nodeId', cause: error });
    throw asRequestError(error);
  }
}

/**
 * `GET /api/agents/:id/graph/nodes` (the newest nodes of an agent's graph, or of the society's
 * with `id` `society`) and `GET /api/agents/:id/graph/nodes/:nodeId` (a node's neighbourhood with
 * its edges' types): `rt.graph`, redacted with the server's redactor, written by the serializer
 * compiled from the view's schema.
 */
export function registerGraphRoutes(app: FastifyInstance, runtime: Runtime, redactor: Redactor): void {
  app.get('/api/agents/:id/graph/nodes', { schema: { response: { 200: graphReply } } }, async (request) => {
    const { id } = parseOrThrow(AgentIdParamsSchema, request.params);
    return viewOf(runtime, id, parseOrThrow(GraphNodesQuerySchema, request.query), redactor);
  });
  app.get('/api/agents/:id/graph/nodes/:nodeId', { schema: { response: { 200: graphReply } } }, async (request) => {
    const { id, nodeId } = parseOrThrow(GraphNodeParamsSchema, request.params);
    return viewOf(runtime, id, { ...parseOrThrow(GraphNodeQuerySchema, request.query), nodeId }, redactor);
  });
}

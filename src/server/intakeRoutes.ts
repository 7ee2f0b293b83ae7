import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime/index.js';
import { parseOrThrow } from '../task/index.js';
import { SendBodySchema, SubmitBodySchema } from './schemas.js';

/**
 * `POST /api/submit` and `POST /api/send`: the same calls the console makes (`rt.submit`,
 * `rt.send`), so a message takes one path into the society whichever door it came through. The
 * reply is sent once the runtime has accepted the Task (durably, with a data dir), and carries
 * the id of the Task actually sent and its session (a new session's id is its first Task's id).
 */
export function registerIntakeRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.post('/api/submit', async (request, reply) => {
    const { text, sessionId } = parseOrThrow(SubmitBodySchema, request.body);
    const taskId = await runtime.submit(text, sessionId === undefined ? {} : { sessionId });
    return reply.status(201).send({ taskId, sessionId: sessionId ?? taskId });
  });

  app.post('/api/send', async (request, reply) => {
    const { agentId, text, taskId, sessionId } = parseOrThrow(SendBodySchema, request.body);
    const options = { ...(taskId === undefined ? {} : { taskId }), ...(sessionId === undefined ? {} : { sessionId }) };
    const messageId = await runtime.send(agentId, text, options);
    return reply.status(201).send({ messageId, sessionId: sessionId ?? taskId ?? messageId });
  });
}

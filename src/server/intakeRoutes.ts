import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime/index.js';
import { parseOrThrow } from '../task/index.js';
import { SendBodySchema, SubmitBodySchema } from './schemas.js';

/**
 * `POST /api/submit` and `POST /api/send`: the same calls the console makes (`rt.submit`,
 * `rt.send`), so a message takes one path into the society whichever door it came through. The
 * reply is sent once the runtime has accepted the Task (durably, with a data dir), and carries
 * the id of the Task actually sent.
 */
export function registerIntakeRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.post('/api/submit', async (request, reply) => {
    const body = parseOrThrow(SubmitBodySchema, request.body);
    const taskId = await runtime.submit(body.text);
    return reply.status(201).send({ taskId });
  });

  app.post('/api/send', async (request, reply) => {
    const body = parseOrThrow(SendBodySchema, request.body);
    const messageId = await runtime.send(body.agentId, body.text, body.taskId === undefined ? {} : { taskId: body.taskId });
    return reply.status(201).send({ messageId });
  });
}

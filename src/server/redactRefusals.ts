import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redactor } from '../task/index.js';

/**
 * An `onSend` hook that redacts every refusal's body: a refusal names what it was given (`no
 * task "…"`, a path, a query key), and the client may have put a secret there. Replies below
 * 400 are left alone: each route redacts what it reads back itself, without a second pass.
 */
export function redactRefusals(redactor: Redactor) {
  return (_: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void => {
    done(null, reply.statusCode >= 400 && typeof payload === 'string' ? redactor.text(payload) : payload);
  };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './httpErrors.js';

/** Routes anyone may call: an orchestrator's probes carry no token. */
export const publicPaths: ReadonlySet<string> = new Set(['/health', '/ready']);

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * An `onRequest` hook that lets a request through only with `Authorization: Bearer <token>`.
 * Both sides are hashed first, so the comparison takes the same time whatever the guess.
 */
export function bearerAuth(token: string): (request: FastifyRequest) => Promise<void> {
  const expected = digest(token);
  return async (request) => {
    if (publicPaths.has(request.url.split('?', 1)[0] ?? '')) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined) throw new HttpError(401, 'unauthorized', 'missing bearer token (Authorization: Bearer <TROUPE_TOKEN>)');
    if (!timingSafeEqual(digest(match[1]), expected)) throw new HttpError(401, 'unauthorized', 'wrong bearer token');
  };
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

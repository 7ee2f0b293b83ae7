import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { dashboardPaths } from './dashboardRoute.js';
import { HttpError } from './httpErrors.js';
import { pathOf } from './requestPath.js';

/** Routes anyone may call: an orchestrator's probes carry no token; the A2A agent card says how to authenticate; the dashboard's page holds no data (its API calls do). */
const publicPaths: ReadonlySet<string> = new Set(['/health', '/ready', '/.well-known/agent-card.json', ...dashboardPaths]);

/**
 * Routes that also take the token as `?access_token=`: a browser's EventSource cannot set
 * headers. Only the event stream, which changes nothing; a URL may end up in a proxy's log.
 */
const queryTokenPaths: ReadonlySet<string> = new Set(['/api/events']);

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether an `Authorization` header presents `token` as a bearer token: both sides hashed first,
 * so the comparison takes the same time whatever the guess. Undefined when it presents none.
 */
export function presentsToken(authorization: string | undefined, token: string): boolean | undefined {
  const presented = bearerOf(authorization);
  return presented === undefined ? undefined : timingSafeEqual(digest(presented), digest(token));
}

const bearerOf = (header: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];

/**
 * An `onRequest` hook that lets a request through only with `Authorization: Bearer <token>`
 * (or, on the event stream, `?access_token=<token>`). Both sides are hashed first, so the
 * comparison takes the same time whatever the guess.
 */
export function bearerAuth(token: string): onRequestHookHandler {
  const expected = digest(token);
  // Takes Fastify's `done` rather than being async: a request then costs no promise here.
  return (request, _reply, done) => done(refusal(request, expected));
}

/** Why `request` may not pass, or undefined when it presents the token (or needs none). */
function refusal(request: FastifyRequest, expected: Buffer): HttpError | undefined {
  const path = pathOf(request.url);
  if (publicPaths.has(path)) return undefined;
  let presented = bearerOf(request.headers.authorization);
  if (presented === undefined && queryTokenPaths.has(path)) presented = new URLSearchParams(request.url.split('?', 2)[1]).get('access_token') ?? undefined;
  if (presented === undefined) {
    return new HttpError('unauthorized', 'missing bearer token (Authorization: Bearer <TROUPE_TOKEN>; on /api/events also ?access_token=<TROUPE_TOKEN>)');
  }
  return timingSafeEqual(digest(presented), expected) ? undefined : new HttpError('unauthorized', 'wrong bearer token');
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

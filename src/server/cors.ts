import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';

/** `*` (any origin), or origins such as `https://app.example.com`: scheme, host and port, no path. */
const CorsOptionSchema = z.object({
  corsOrigins: z.array(
    z.union([
      z.literal('*'),
      z.string().regex(/^https?:\/\/[^/?#\s]+$/, 'must be "*" or an origin such as https://app.example.com (scheme, host and port; no path)'),
    ]),
  ),
});

/**
 * Lets browsers on `origins` call the API (fastify's own `@fastify/cors`): preflights are
 * answered before the auth hook (a preflight carries no token), replies carry
 * `access-control-allow-origin`, and a browser may send `authorization` and `content-type`.
 * Register it before any other hook, so even a refusal carries the CORS headers a browser
 * needs to read it.
 */
export function allowOrigins(app: FastifyInstance, origins: readonly string[]): void {
  const checked = parseOrThrow(CorsOptionSchema, { corsOrigins: origins }).corsOrigins;
  void app.register(cors, {
    origin: checked.includes('*') ? '*' : checked,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'last-event-id'],
    maxAge: 600,
  });
}

import type { FastifyInstance, HTTPMethods } from 'fastify';
import { HttpError, toResponse } from './httpErrors.js';

/** The methods a client may try on any path; one a path does not take is a 405, not a 404. */
const knownMethods: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Answers a known path asked with a method it does not take with `405 method_not_allowed` and
 * an `Allow` header listing those it takes (RFC 9110 §15.5.6), where Fastify would say 404.
 * Call it before the routes are registered (it watches them through `onRoute`), then call
 * the function it returns once they all are.
 */
export function methodNotAllowed(app: FastifyInstance, options: { readonly corsPreflight: boolean }): () => void {
  const routes = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = routes.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    routes.set(route.url, methods);
  });
  return () => {
    for (const [url, methods] of [...routes]) {
      // `*` is CORS's preflight route, which answers OPTIONS on every path.
      if (url === '*') continue;
      const allowed = new Set(methods);
      if (allowed.has('GET')) allowed.add('HEAD');
      if (options.corsPreflight) allowed.add('OPTIONS');
      const others = knownMethods.filter((method) => !allowed.has(method));
      if (others.length === 0) continue;
      const allow = knownMethods.filter((method) => allowed.has(method)).join(', ');
      app.route({
        method: others,
        url,
        handler: async (request, reply) => {
          const { status, body } = toResponse(new HttpError('method_not_allowed', `${url} does not take ${request.method}; it takes ${allow}`));
          return reply.status(status).header('allow', allow).send(body);
        },
      });
    }
  };
}

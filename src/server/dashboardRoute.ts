import type { FastifyInstance } from 'fastify';
import { type DashboardAssets, loadDashboard } from './dashboardAssets.js';

/** The page: nothing but the shell the script fills; every byte of it ships with the server. */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>troupe</title>
<link rel="stylesheet" href="/ui/dashboard.css">
<script type="module" src="/ui/dashboard.js"></script>
</head>
<body></body>
</html>
`;

/** The page loads nothing from anywhere but this server, and runs no inline script. */
const headers = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
} as const;

/** The paths of the dashboard: the page and its assets hold no data, so they need no token (docs/dashboard.md). */
export const dashboardPaths: readonly string[] = ['/ui', '/ui/', '/ui/dashboard.js', '/ui/dashboard.css'];

/**
 * `GET /ui`: the web dashboard (docs/dashboard.md). The page and its script load without a
 * token; the script asks for one when the API answers 401 and sends it with every call.
 * The bundle is read (or, from sources, made) on the first request, then kept.
 */
export function registerDashboardRoutes(app: FastifyInstance): void {
  let assets: Promise<DashboardAssets> | undefined;
  const loaded = (): Promise<DashboardAssets> => {
    assets ??= loadDashboard();
    // A failed load is tried again by the next request rather than kept.
    assets.catch(() => (assets = undefined));
    return assets;
  };
  for (const path of ['/ui', '/ui/']) app.get(path, async (_, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(page));
  app.get('/ui/dashboard.js', async (_, reply) =>
    reply
      .headers(headers)
      .type('text/javascript; charset=utf-8')
      .send((await loaded()).script),
  );
  app.get('/ui/dashboard.css', async (_, reply) =>
    reply
      .headers(headers)
      .type('text/css; charset=utf-8')
      .send((await loaded()).style),
  );
}

import { type Server, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ExitCode } from '../../src/cli/exitCodes.js';
import { ConditionWatch } from '../support/conditionWatch.js';
import { call } from '../support/httpServerFixture.js';
import { until } from '../support/runtimeFixture.js';
import { ServeInProcess, serveOptions } from '../support/serveInProcess.js';

// `troupe serve --inspect`: a service is inspectable for as long as it runs, not only a run.

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A WebSocket client of the inspector relay at `pageUrl`, its messages collected, and a way to wait for one. */
async function relayClient(pageUrl: string): Promise<{ received: string[]; until: (wanted: (message: string) => boolean) => Promise<void> }> {
  const watch = new ConditionWatch();
  const received: string[] = [];
  const client = new WebSocket(pageUrl.replace(/^http:/, 'ws:'));
  cleanups.push(() => client.terminate());
  client.on('message', (data: Buffer) => {
    received.push(data.toString());
    watch.changed();
  });
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  return { received, until: (wanted) => watch.until(() => received.some(wanted)) };
}

describe('troupe serve --inspect', () => {
  it('keeps the inspector relay up while the service runs: a page that opens later sees every actor, then the work of each request', async () => {
    const sigterms = process.listenerCount('SIGTERM');
    const serve = new ServeInProcess(serveOptions({ inspectPort: 0, console: false }));
    const relay = String((await serve.log('inspector relay listening: open it to watch every actor in the Stately inspector'))['url']);
    const url = await serve.url();
    expect(await fetch(relay).then((response) => response.text())).toContain('Stately Inspector');

    // Connected after the runtime started: the relay replays the actors created before.
    const page = await relayClient(relay);
    await page.until((message) => message.includes('"@xstate.actor"') && message.includes('"root"'));
    const submitted = await call<{ taskId: string }>(url, '/api/submit', { json: { text: 'write a haiku about the inspector' } });
    expect(submitted.status).toBe(201);
    await page.until((message) => message.includes('write a haiku about the inspector'));

    await until(() => process.listenerCount('SIGTERM') > sigterms, "serve's signal listeners");
    process.kill(process.pid, 'SIGTERM');
    expect(await serve.done).toBe(ExitCode.ok);
    // Closed with the service.
    await expect(fetch(relay)).rejects.toThrow();
  });

  it('refuses an inspector port that is in use: exit 2, naming the port, before the runtime starts', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => blocker.close());
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const serve = new ServeInProcess(serveOptions({ inspectPort: port }));
    expect(await serve.done).toBe(ExitCode.usage);
    expect(serve.logs.find((line) => line.msg === 'the inspector could not start')?.['error']).toContain(`inspector port ${port} is in use`);
    expect(serve.logs.some((line) => line.msg === 'runtime started')).toBe(false);
  });
});

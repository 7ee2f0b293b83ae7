import { type Server, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exitCodes.js';
import { serveModel } from '../../src/cli/modelServer.js';
import { until } from '../support/runtimeFixture.js';
import { ServeInProcess, serveOptions } from '../support/serveInProcess.js';

// The long-running commands listen to the process's SIGINT and SIGTERM, and must take their
// listeners away when they return: a host that runs them again would pile them up, and a
// signal after they return must end the process as it would without troupe.
// (`troupe serve`'s signal path is property 14, test/cli/serveShutdown.property.test.ts.)

const stopSignals = ['SIGINT', 'SIGTERM'] as const;
const listenerCounts = (): number[] => stopSignals.map((signal) => process.listenerCount(signal));

let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (blocker === undefined ? resolve() : blocker.close(() => resolve())));
  blocker = undefined;
});

describe('stop signals of the long-running commands', () => {
  it('troupe model-server stops on a real SIGTERM and leaves no listener behind', async () => {
    const before = listenerCounts();
    let stdout = '';
    let stderr = '';
    const done = serveModel(
      { port: 0, host: '127.0.0.1', chunkDelayMs: 0 },
      { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, signals: process },
    );
    // The listeners go in right after it says where it listens.
    await until(() => stdout.includes('try: OPENAI_BASE_URL=') && listenerCounts().every((count, i) => count > (before[i] ?? 0)), 'the listeners');
    process.kill(process.pid, 'SIGTERM');
    expect(await done).toBe(ExitCode.ok);
    expect(stderr).toContain('troupe model-server: stopped after 0 chat requests');
    expect(listenerCounts()).toEqual(before);
  });

  it('troupe serve whose console input ends (its port taken) exits 2 and leaves no listener behind', async () => {
    const before = listenerCounts();
    const server = createServer();
    blocker = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const serve = new ServeInProcess(serveOptions({ port: typeof address === 'object' && address !== null ? address.port : 0 }));
    await serve.log('the HTTP API could not start; running in console mode only');
    await until(() => listenerCounts().every((count, i) => count > (before[i] ?? 0)), 'the listeners');
    serve.endInput();
    expect(await serve.done).toBe(ExitCode.usage);
    expect(serve.logs.some((line) => /console's input has ended: nothing to serve/.test(line.msg))).toBe(true);
    expect(await serve.log('troupe serve stopped')).toMatchObject({ drained: true, pendingTasks: 0 });
    expect(listenerCounts()).toEqual(before);
  });
});

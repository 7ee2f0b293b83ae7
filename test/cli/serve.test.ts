import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { type Task, finalStatuses, taskText } from '../../src/task/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { freePort } from '../support/freePort.js';
import { ServeProcess } from '../support/serveProcess.js';

interface MessagesBody {
  readonly messages: Task[];
}

async function submit(url: string, text: string, token?: string): Promise<string> {
  const response = await fetch(`${url}/api/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ text }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { taskId: string }).taskId;
}

async function answersOf(url: string, taskId: string): Promise<Task[]> {
  const response = await fetch(`${url}/api/messages/${taskId}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as MessagesBody).messages.filter((task) => task.id === taskId && task.status === 'completed');
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-serve-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function started(args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const serve = new ServeProcess(args, env);
  cleanups.push(async () => {
    serve.signal('SIGKILL');
    await serve.done;
  });
  return serve;
}

/** A port another server holds for the rest of the test. */
async function takenPort(): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve())));
  const address = blocker.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('troupe serve (child process)', () => {
  it('SIGTERM mid-turn: the turn finishes, everything is persisted, exit 0; a restart still answers GET /api/messages', async () => {
    const dataDir = await tempDir();
    // Paced like a real model, so the second requirement is still being worked on when the signal comes.
    const first = started(['--port', '0', '--data-dir', dataDir, '--no-console'], { TROUPE_OFFLINE_DELAY_MS: '3' });
    const url = await first.url();
    const events = await EventStreamClient.open(url, '/api/events');
    const earlier = await submit(url, 'write a haiku about rain');
    await events.until((client) => client.tasks.some((task) => task.id === earlier && finalStatuses.has(task.status)));
    const inFlight = await submit(url, 'write a haiku about snow');
    await events.until((client) => client.tasks.some((task) => task.sessionId === inFlight && task.action === 'agent.spawned'));
    expect(events.tasks.some((task) => task.id === inFlight && finalStatuses.has(task.status))).toBe(false);
    first.signal('SIGTERM');

    expect(await first.done, first.stderr).toBe(0);
    const stopped = await first.log('troupe serve stopped');
    expect(stopped).toMatchObject({ drained: true, pendingTasks: 0 });
    expect(
      first.logs.some((line) => line.msg === 'shutting down: no new requests or Tasks; letting turns in flight finish' && line['signal'] === 'SIGTERM'),
    ).toBe(true);

    const second = started(['--port', '0', '--data-dir', dataDir, '--no-console']);
    const again = await second.url();
    expect(taskText((await answersOf(again, earlier))[0] as Task)).toContain('each drop a small syllable');
    // The turn in flight at the signal was let finish, and its answer was persisted too.
    expect(await answersOf(again, inFlight)).toHaveLength(1);
    second.signal('SIGINT');
    expect(await second.done).toBe(0);
  });

  it('a port in use is logged as an error and the runtime keeps running in console mode', async () => {
    const serve = started(['--port', String(await takenPort()), '--memory']);
    const refused = await serve.log('the HTTP API could not start; running in console mode only');
    expect(refused.level).toBe(50);
    expect(String(refused['error'])).toMatch(/EADDRINUSE|in use/);
    expect(refused['hint']).toMatch(/is in use .*: pick another with --port <port>, or --port 0 for any free one/);
    serve.write('write a haiku about rain');
    await serve.until(() => /root → user \[completed\]/.test(serve.stdout) || undefined, 'the answer on stdout');
    expect(serve.stdout).toMatch(/→ root {2}task \S+/);
    expect(serve.stdout).toContain('each drop a small syllable');
    serve.write('@nobody hello');
    await serve.until(() => serve.stdout.includes('troupe: no agent "nobody"') || undefined, 'the refusal');
    serve.signal('SIGINT');
    expect(await serve.done).toBe(0);
  });

  it('--inspect-port serves the inspector relay for as long as the service runs', async () => {
    const port = await freePort();
    const serve = started(['--port', '0', '--memory', '--no-console', '--inspect-port', String(port)]);
    const relay = await serve.log('inspector relay listening: open it to watch every actor in the Stately inspector');
    expect(relay['url']).toBe(`http://127.0.0.1:${port}`);
    await serve.url();
    expect(await fetch(`http://127.0.0.1:${port}`).then((response) => response.text())).toContain('Stately Inspector');
    serve.signal('SIGTERM');
    expect(await serve.done).toBe(0);
  });

  it('requires TROUPE_TOKEN when set, except on /health, and a second signal forces the exit', async () => {
    const serve = started(['--port', '0', '--memory', '--no-console'], { TROUPE_TOKEN: 'serve-test-token', TROUPE_OFFLINE_DELAY_MS: '50' });
    const url = await serve.url();
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/agents`)).status).toBe(401);
    expect((await fetch(`${url}/api/agents`, { headers: { authorization: 'Bearer serve-test-token' } })).status).toBe(200);
    // A slow turn in flight keeps the drain waiting; the second signal does not.
    await submit(url, 'write a haiku about rain', 'serve-test-token');
    serve.signal('SIGTERM');
    await serve.log('shutting down: no new requests or Tasks; letting turns in flight finish');
    serve.signal('SIGTERM');
    expect(await serve.done).toBe(143);
    expect(serve.logs.some((line) => line.msg === 'second signal: exiting without waiting')).toBe(true);
  });

  it('a port in use with --no-console exits 2 with a message: there is nothing to serve', async () => {
    const serve = started(['--port', String(await takenPort()), '--memory', '--no-console']);
    expect(await serve.done).toBe(2);
    expect(serve.logs.some((line) => line.level === 50 && /could not start and there is no console/.test(line.msg))).toBe(true);
  });

  it('a port in use exits 2 once the console input ends', async () => {
    const serve = started(['--port', String(await takenPort()), '--memory']);
    await serve.log('the HTTP API could not start; running in console mode only');
    serve.endInput();
    expect(await serve.done).toBe(2);
    expect(serve.logs.some((line) => /console's input has ended: nothing to serve/.test(line.msg))).toBe(true);
  });

  it('server settings that are wrong are refused naming the option, exit 2', async () => {
    const serve = started(['--port', '0', '--memory', '--no-console', '--headers-timeout', '60', '--request-timeout', '30']);
    expect(await serve.done).toBe(2);
    expect(serve.stderr).toContain('headersTimeoutMs');
    const cors = started(['--port', '0', '--memory', '--no-console', '--cors', 'https://app.example.com/app']);
    expect(await cors.done).toBe(2);
    expect(cors.stderr).toContain('corsOrigins[0]');
    const a2aTasks = started(['--port', '0', '--memory', '--no-console', '--a2a-max-tasks', '0']);
    expect(await a2aTasks.done).toBe(2);
    expect(a2aTasks.stderr).toContain('--a2a-max-tasks must be an integer ≥ 1, got "0"');
    const a2aHistory = started(['--port', '0', '--memory', '--no-console', '--a2a-max-history', '20000']);
    expect(await a2aHistory.done).toBe(2);
    expect(a2aHistory.stderr).toContain('a2a.maxHistory: must be at most 10000');
  });

  it('while draining, intake answers 503 intake_closed and /ready 503; reads are still served', async () => {
    // A model that never answers keeps the drain going until the test has seen it.
    const model = await startOpenAICompatibleServer();
    cleanups.push(() => model.close());
    model.script({ hang: true });
    const serve = started(['--port', '0', '--memory', '--no-console', '--drain-timeout', '600', '--cors', 'https://app.example.com'], {
      OPENAI_BASE_URL: model.baseURL,
    });
    const url = await serve.url();
    const events = await EventStreamClient.open(url, '/api/events');
    const taskId = await submit(url, 'write a haiku about rain');
    await events.until((client) => client.tasks.some((task) => task.id === taskId && task.status === 'working'));
    serve.signal('SIGTERM');
    await serve.log('shutting down: no new requests or Tasks; letting turns in flight finish');

    const refused = await fetch(`${url}/api/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"more"}' });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('intake_closed');
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { ready: boolean }).ready).toBe(false);
    const health = await fetch(`${url}/health`, { headers: { origin: 'https://app.example.com' } });
    expect(health.status).toBe(200);
    expect(health.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await fetch(`${url}/api/agents`)).status).toBe(200);
    serve.signal('SIGTERM');
    expect(await serve.done).toBe(143);
  });
});

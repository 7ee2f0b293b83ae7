import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { TaskSchema } from '../../src/task/index.js';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli, startCli, untilPrinted } from '../support/cliProcess.js';
import { freePort } from '../support/freePort.js';

/** Index of the first line matching `pattern` at or after `from`, or -1. */
function lineIndex(lines: readonly string[], pattern: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i] ?? '')) return i;
  return -1;
}

/** Asserts the society's flow in the printed lines: spawn → delegate → result → terminate → answer. */
function expectDelegationFlow(stdout: string): void {
  const lines = stdout.split('\n');
  const spawned = lineIndex(lines, /^poet-[0-9a-f]+ → root\s+agent\.spawned/);
  const child = /^(poet-[0-9a-f]+) →/.exec(lines[spawned] ?? '')?.[1] ?? 'missing';
  const delegated = lineIndex(lines, new RegExp(`^root → ${child}\\s+execute\\s`), spawned);
  const result_ = lineIndex(lines, new RegExp(`^${child} → root\\s+execute \\[completed\\].*Rain on the roof`), delegated);
  const terminated = lineIndex(lines, new RegExp(`^${child} → root\\s+agent\\.terminated`), result_);
  const answered = lineIndex(lines, /^root → user\s+execute \[completed\]/, terminated);
  expect(
    [spawned, delegated, result_, terminated, answered].every((i) => i >= 0),
    stdout,
  ).toBe(true);
  expect(stdout).toContain('each drop a small syllable');
}

describe('troupe run', () => {
  it('completes offline: spawn → delegate → result → terminate → answer, exit 0', async () => {
    const result = await runCli(['run', 'write a haiku about rain', '--no-status']);
    expect(result.code, result.stderr).toBe(0);
    expectDelegationFlow(result.stdout);
    expect(result.stderr).toContain('scripted');
    // The offline model reports no tokens; its six calls are counted all the same.
    expect(result.stderr).toMatch(/2 agents, 6 model calls, 0 prompt \+ 0 completion tokens, 0 pending tasks at shutdown/);
  });

  it('says the Task and session ids, so troupe messages can follow it and --session continue it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-run-id-'));
    const sessionLine = /troupe: task (\S+) in session (\S+) \(its messages: troupe messages \2; continue it: --session \2\)/;
    try {
      const result = await runCli(['run', 'write a haiku about rain', '--no-status', '--data-dir', dataDir]);
      expect(result.code, result.stderr).toBe(0);
      const [, taskId, sessionId] = sessionLine.exec(result.stderr) ?? [];
      expect(taskId, result.stderr).toBeDefined();
      // A new session is named by its first Task.
      expect(sessionId).toBe(taskId);
      const again = await runCli(['run', 'write a haiku about snow', '--no-status', '--data-dir', dataDir, '--session', sessionId ?? '']);
      expect(again.code, again.stderr).toBe(0);
      const [, secondTask, sameSession] = sessionLine.exec(again.stderr) ?? [];
      expect(sameSession).toBe(sessionId);
      expect(secondTask).not.toBe(taskId);
      const messages = await runCli(['messages', sessionId ?? '', '--data-dir', dataDir, '--json']);
      expect(messages.code, messages.stderr).toBe(0);
      expect(messages.stdout).toContain(taskId);
      expect(messages.stdout).toContain(secondTask);
      expect(messages.stdout).toContain('each drop a small syllable');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed --session before starting anything (exit 2)', async () => {
    const result = await runCli(['run', 'hi', '--memory', '--session', 'not a session!']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--session must be 1–128 letters');
  });

  it('--json prints every Task as one JSON line and nothing else on stdout', async () => {
    const result = await runCli(['run', 'write a haiku about rain', '--json', '--memory']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    const tasks = lines.map((line) => TaskSchema.parse(JSON.parse(line)));
    expect(tasks.length).toBeGreaterThan(5);
    const answer = tasks.findLast((task) => task.from === 'root' && task.to === 'user');
    expect(answer).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(answer?.result)).toContain('each drop a small syllable');
  });

  it('shows the same flow through the openai package when OPENAI_BASE_URL points at an OpenAI-compatible server', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const result = await runCli(['run', 'write a haiku about rain', '--no-status'], { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: '' });
      expect(result.code, result.stderr).toBe(0);
      expectDelegationFlow(result.stdout);
      expect(result.stderr).toContain(`model openai:gpt-4o-mini at ${server.baseURL}`);
      expect(server.chatRequests).toHaveLength(6);
      // The closing line adds up the usage the server reported in its streams.
      const spent = /6 model calls, (\d+) prompt \+ (\d+) completion tokens/.exec(result.stderr);
      expect(spent, result.stderr).not.toBeNull();
      expect(Number(spent?.[1])).toBeGreaterThan(0);
      expect(Number(spent?.[2])).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('troupe model-server serves the playbook until SIGINT', async () => {
    const port = await freePort();
    const { child, done } = startCli(['model-server', '--port', String(port)]);
    const baseURL = `http://127.0.0.1:${port}/v1`;
    expect(await untilPrinted(child, 'stdout', '/v1')).toContain(baseURL);
    const result = await runCli(['run', 'write a haiku about rain', '--no-status'], { OPENAI_BASE_URL: baseURL });
    expect(result.code, result.stderr).toBe(0);
    expectDelegationFlow(result.stdout);
    child.kill('SIGINT');
    const served = await done;
    expect(served.code).toBe(0);
    expect(served.stderr).toContain('stopped after 6 chat requests');
  });

  // Several CLI processes one after another: on a loaded 2-core machine each can take 5–10 s to start.
  it('writes the organisation to --data-dir and picks it up again on the next run', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-run-'));
    try {
      const first = await runCli(['run', 'write a haiku about rain', '--no-status', '--data-dir', dir]);
      expect(first.code, first.stderr).toBe(0);
      const second = await runCli(['run', 'write a haiku about snow', '--no-status', '--data-dir', dir]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain('Snow on the roof');
      const org = await runCli(['org', '--data-dir', dir, '--json']);
      expect(org.code, org.stderr).toBe(0);
      const { agents, roles } = JSON.parse(org.stdout) as { agents: { id: string; status: string }[]; roles: { name: string }[] };
      expect(roles.map((role) => role.name).sort()).toEqual(['poet', 'root']);
      expect(agents.find((agent) => agent.id === 'root')?.status).toBe('active');
      expect(agents.filter((agent) => agent.id.startsWith('poet-')).map((agent) => agent.status)).toEqual(['terminated', 'terminated']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 3 with a clear message when there is no answer within --timeout', async () => {
    const result = await runCli(['run', 'write a haiku about rain', '--timeout', '0.3', '--no-status'], { TROUPE_OFFLINE_DELAY_MS: '50' });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/no answer to task .* within 300 ms \(raise --timeout/);
  });

  it.each([
    [['run', '   '], /requirement must not be empty/],
    [['run', 'x', '--timeout', 'soon'], /--timeout must be a positive number, got "soon"/],
    [['run', 'x', '--inspect-port', '99999'], /port must be an integer 1–65535, got "99999"/],
    [['run'], /missing required argument 'requirement'/],
    [['dance'], /unknown command 'dance'/],
  ])('exits 2 on bad arguments %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('rejects a malformed TROUPE_OFFLINE_DELAY_MS', async () => {
    const result = await runCli(['run', 'x', '--no-status'], { TROUPE_OFFLINE_DELAY_MS: 'fast' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad settings in the environment: TROUPE_OFFLINE_DELAY_MS: /);
  });

  it('takes the router options from TROUPE_ROUTING, and exits 2 naming a bad one', async () => {
    const bad = await runCli(['run', 'x', '--no-status'], { TROUPE_ROUTING: '{"mode":"psychic"}' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad settings in the environment: TROUPE_ROUTING\.mode: /);
    const good = await runCli(['run', 'write a haiku', '--no-status'], {
      TROUPE_ROUTING: '{"threshold":0.3,"askModel":false}',
      TROUPE_MAX_HANDOFFS_PER_TASK: '2',
    });
    expect(good.code).toBe(0);
  });

  it('--inspect-ws streams every actor to a WebSocket inspector', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const events: { type: string; name?: string; snapshot?: { value?: unknown; context?: { lanes?: { phase?: string }[] } } }[] = [];
    server.on('connection', (socket) => socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as (typeof events)[number])));
    try {
      const result = await runCli(['run', 'write a haiku about rain', '--no-status', '--inspect-ws', `ws://127.0.0.1:${port}`]);
      expect(result.code, result.stderr).toBe(0);
      const actors = new Set(events.filter((event) => event.type === '@xstate.actor').map((event) => event.name));
      expect(actors).toContain('root');
      expect(actors).toContain('user');
      expect(actors).toContain('runtime');
      expect([...actors].some((name) => name?.startsWith('poet-') === true)).toBe(true);
      const values = events.filter((event) => event.type === '@xstate.snapshot').map((event) => JSON.stringify(event.snapshot?.value));
      for (const state of ['{"running":"idle"}', '{"running":"turn"}', '"draining"', '"stopping"', '"terminated"']) expect(values).toContain(state);
      // Where each turn is: its lane's phase, in the snapshot's context.
      const phases = new Set(events.flatMap((event) => event.snapshot?.context?.lanes?.map((lane) => lane.phase) ?? []));
      expect([...phases]).toEqual(expect.arrayContaining(['thinking', 'acting']));
    } finally {
      server.close();
    }
  });

  it('--inspect serves the inspector relay, whose clients receive the actors', async () => {
    const port = await freePort();
    // --inspect before the requirement: a flag, never taking the requirement as its port.
    const { child, done } = startCli(['run', '--no-status', '--inspect-port', String(port), '--inspect', 'write a haiku about rain'], {
      TROUPE_OFFLINE_DELAY_MS: '40',
    });
    expect(await untilPrinted(child, 'stderr', `http://127.0.0.1:${port}`)).toContain(`open http://127.0.0.1:${port}`);
    const page = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.text());
    expect(page).toContain('Stately Inspector');
    const received: string[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    client.on('message', (data: Buffer) => received.push(data.toString()));
    const result = await done;
    client.close();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('each drop a small syllable');
    expect(result.stderr).toContain('the run has ended; closing the inspector relay');
    expect(received.some((message) => message.includes('"@xstate.actor"') && message.includes('"root"'))).toBe(true);
  });

  it('refuses --inspect on a port that is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const result = await runCli(['run', 'x', '--no-status', '--inspect-port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`inspector port ${port} is in use`);
    } finally {
      blocker.close();
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import { type OpenAICompatibleServer, type ScriptReply, type ServerAnswer, startOpenAICompatibleServer } from '../../src/testing.js';
import { openOrgStore } from '../../src/org/index.js';
import { type Task, finalStatuses } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { describeWithNatsServer, natsServerAfterEach } from '../support/natsBus.js';
import { type RoleStep, delegationChain, lastToolResult, roleOf, scriptByRole } from '../support/scriptByRole.js';
import { ServeProcess } from '../support/serveProcess.js';

// A society in three processes on a real nats-server: `troupe serve --nats` (the owner: root, the
// org store, the HTTP API) and `troupe node`s hosting roles, every model call going over HTTP to
// one OpenAI-compatible server in this process, answering each call by the calling agent's role
// (calls of no agent, such as the memory compactor's, get a plain text).

/** How the model server answers the current test's calls, by role. */
let answer: (request: ChatRequest) => ServerAnswer = () => ({ text: 'ok' });
let model: OpenAICompatibleServer;
beforeAll(async () => {
  model = await startOpenAICompatibleServer({ fallback: (request) => answer(request) });
});

/** Answers each role's calls from its script, and any other call (no agent's) with a summary; `called` hears every call's role. */
function byRole(scripts: Record<string, RoleStep[]>, special: Record<string, ServerAnswer> = {}, called: (role: string) => void = () => undefined) {
  const script = scriptByRole(scripts);
  answer = (request) => {
    const role = roleOf(request);
    called(role);
    return special[role] ?? (role in scripts ? script.reply(request) : { text: 'a summary' });
  };
  return script;
}
afterAll(() => model.close());

const later = cleanupAfterEach();
const natsServer = natsServerAfterEach();

function child(command: 'serve' | 'node', args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const process = new ServeProcess(args, { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', TROUPE_MODEL: 'troupe-test', ...env }, command);
  later(async () => {
    process.signal('SIGKILL');
    await process.done;
  });
  return process;
}

/** The owner and one node per entry (its roles), all joined, each given `extra` flags and `env`; resolves with the owner's URL. */
async function society(
  nats: string,
  nodes: Record<string, { roles: string; heartbeat?: string }>,
  store: readonly string[] = ['--memory'],
  { extra = [], env = {} }: { extra?: readonly string[]; env?: Record<string, string> } = {},
) {
  const owner = child('serve', ['--port', '0', ...store, '--no-console', '--drain-timeout', '0', '--nats', nats, '--society', 'three', ...extra], env);
  const url = await owner.url();
  const hosts: Record<string, ServeProcess> = {};
  for (const [name, { roles, heartbeat }] of Object.entries(nodes)) {
    hosts[name] = child(
      'node',
      ['--nats', nats, '--society', 'three', '--roles', roles, '--name', name, ...(heartbeat === undefined ? [] : ['--heartbeat', heartbeat]), ...extra],
      env,
    );
    await owner.until(() => owner.logs.find((line) => line.msg === 'node joined' && line['node'] === name), `${name} to join`);
  }
  return { owner, url, hosts };
}

async function submit(url: string, text: string): Promise<string> {
  const response = await fetch(`${url}/api/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { taskId: string }).taskId;
}

/** The owner's event stream: every Task of the society its bus sees. */
async function eventsOf(url: string): Promise<EventStreamClient> {
  const events = await EventStreamClient.open(url, '/api/events');
  later(async () => {
    events.close();
    await Promise.resolve();
  });
  return events;
}

/** The final reply of `taskId` to the user, once it is on the stream. */
async function answerOf(events: EventStreamClient, taskId: string): Promise<Task> {
  const final = (): Task | undefined => events.tasks.find((task) => task.id === taskId && task.to === 'user' && finalStatuses.has(task.status));
  await events.until(() => final() !== undefined);
  return final() as Task;
}

describeWithNatsServer('a society over three processes and a real nats-server', () => {
  it(
    'root (owner) delegates to a manager on one node, which delegates to a worker on another and terminates it; root terminates the manager',
    { timeout: 180_000 },
    async () => {
      const nats = await natsServer();
      const script = byRole(delegationChain());
      const { owner, url, hosts } = await society(nats.url, { 'node-a': { roles: 'manager' }, 'node-b': { roles: 'worker' } });
      const events = await eventsOf(url);
      const answer = await answerOf(events, await submit(url, 'what is the number?'));
      expect(answer).toMatchObject({ status: 'completed', result: { text: 'The number is 42.' } });
      expect(script.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
      const placed = owner.logs.filter((line) => line.msg === 'agent placed on a node').map((line) => [line['role'], line['node']]);
      expect(placed).toEqual([
        ['manager', 'node-a'],
        ['worker', 'node-b'],
      ]);
      const agents = ((await (await fetch(`${url}/api/agents`)).json()) as { agents: { roleName: string; status: string }[] }).agents;
      expect(agents.map((agent) => [agent.roleName, agent.status])).toEqual([
        ['root', 'active'],
        ['manager', 'terminated'],
        ['worker', 'terminated'],
      ]);
      for (const host of Object.values(hosts)) host.signal('SIGTERM');
      expect(await Promise.all(Object.values(hosts).map((host) => host.done))).toEqual([0, 0]);
      owner.signal('SIGTERM');
      expect(await owner.done).toBe(0);
    },
  );

  it('a node killed mid-task (SIGKILL) leaves root a timely agent_unreachable and the org store a record of it', { timeout: 180_000 }, async () => {
    const nats = await natsServer();
    // The worker's call is never answered: its node is killed while it waits.
    let workerCalled = (): void => undefined;
    const workerWaits = new Promise<void>((resolve) => {
      workerCalled = resolve;
    });
    byRole(
      {
        root: [
          { toolCalls: [{ name: 'create_role', arguments: { name: 'worker', prompt: 'You work.' } }] },
          { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'worker' } }] },
          (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'work slowly' } }] }),
          (request) => ({ text: `the worker failed: ${JSON.stringify(lastToolResult(request))}` }),
        ],
      },
      { worker: { hang: true } },
      (role) => role === 'worker' && workerCalled(),
    );
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-society-'));
    later(() => rm(dataDir, { recursive: true, force: true }));
    const { owner, url, hosts } = await society(nats.url, { 'node-a': { roles: 'worker', heartbeat: '1' } }, ['--data-dir', dataDir]);
    const events = await eventsOf(url);
    const taskId = await submit(url, 'get it done');
    // The worker is waiting on its model call: now its node dies.
    await workerWaits;
    hosts['node-a']?.signal('SIGKILL');
    const taken = (): Task | undefined =>
      events.tasks.find((task) => task.from.startsWith('worker-') && task.action === 'execute' && task.status === 'working');
    const answer = await answerOf(events, taskId);
    expect(answer.status).toBe('completed');
    expect(JSON.stringify(answer.result)).toContain('its node node-a is unreachable');
    await owner.until(
      () => owner.logs.find((line) => line.msg === 'node unreachable: no heartbeat' && line['node'] === 'node-a'),
      'node-a to be marked unreachable',
    );
    const agents = ((await (await fetch(`${url}/api/agents`)).json()) as { agents: { roleName: string; state: string }[] }).agents;
    expect(agents.find((agent) => agent.roleName === 'worker')?.state).toBe('unreachable');
    // The owner stops (its writes made durable); its org store's log of the session has the worker's failure, which the owner wrote.
    owner.signal('SIGTERM');
    expect(await owner.done).toBe(0);
    const store = await openOrgStore({ dir: dataDir });
    const log = store.messages(taskId, {});
    await store.close();
    expect(log.find((task) => task.id === taken()?.id && task.status === 'failed')?.error).toMatchObject({ code: 'agent_unreachable' });
  });

  it('keeps working across a nats-server restart mid-run: the node is heard again and takes the next delegation', { timeout: 180_000 }, async () => {
    const nats = await natsServer();
    const delegate = (request: ChatRequest): ScriptReply => ({
      toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'a word' } }],
    });
    const relay = (request: ChatRequest): ScriptReply => ({ text: `poet says ${JSON.stringify(lastToolResult(request))}` });
    byRole({
      root: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'poet', prompt: 'You write one word.' } }] },
        { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] },
        delegate,
        relay,
        { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] },
        delegate,
        relay,
      ],
      poet: [{ text: 'rain' }, { text: 'snow' }],
    });
    const { owner, url } = await society(nats.url, { 'node-a': { roles: 'poet', heartbeat: '1' } });
    const events = await eventsOf(url);
    expect(JSON.stringify((await answerOf(events, await submit(url, 'one word'))).result)).toContain('rain');

    await nats.restart();
    // Both ends reconnect by themselves; the owner hears the node's next heartbeat after it.
    const announcements = (): number => events.tasks.filter((task) => task.action === 'nodes.announce').length;
    const before = announcements();
    await events.until(() => announcements() > before);
    const second = await answerOf(events, await submit(url, 'another word'));
    expect(second.status).toBe('completed');
    expect(JSON.stringify(second.result)).toContain('snow');
    expect(owner.logs.filter((line) => line.msg === 'agent placed on a node').map((line) => line['node'])).toEqual(['node-a', 'node-a']);
  });
});

describeWithNatsServer('durable mailboxes over three processes and a nats-server with JetStream', () => {
  it('a node killed mid-task (SIGKILL) loses no work: its agent moves to the other node, which answers root', { timeout: 180_000 }, async () => {
    const nats = await natsServer(undefined, { jetstream: true });
    // The worker's first call never ends (its node is killed while it waits); its next, on the other node, answers.
    let workerCalls = 0;
    let workerCalled = (): void => undefined;
    const workerWaits = new Promise<void>((resolve) => {
      workerCalled = resolve;
    });
    const script = byRole(
      {
        root: [
          { toolCalls: [{ name: 'create_role', arguments: { name: 'worker', prompt: 'You work.' } }] },
          { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'worker' } }] },
          (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'work' } }] }),
          (request) => ({ text: `the worker says ${JSON.stringify(lastToolResult(request))}` }),
        ],
      },
      {},
    );
    const byRoot = answer;
    answer = (request) => {
      if (roleOf(request) !== 'worker') return byRoot(request);
      workerCalls++;
      workerCalled();
      return workerCalls === 1 ? { hang: true } : { text: 'the work is done' };
    };
    const durable = { extra: ['--durable-mailboxes'], env: { TROUPE_NATS_ACK_WAIT: '1' } };
    const nodes = { 'node-a': { roles: 'worker', heartbeat: '1' }, 'node-b': { roles: 'worker', heartbeat: '1' } };
    const { owner, url, hosts } = await society(nats.url, nodes, ['--memory'], durable);
    const events = await eventsOf(url);
    const taskId = await submit(url, 'get it done');
    await workerWaits;
    const placed = owner.logs.find((line) => line.msg === 'agent placed on a node')?.['node'];
    const [doomed, survivor] = placed === 'node-a' ? ['node-a', 'node-b'] : ['node-b', 'node-a'];
    hosts[doomed]?.signal('SIGKILL');
    const done = await answerOf(events, taskId);
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.result)).toContain('the work is done');
    expect(script.remaining()).toEqual({ root: 0 });
    // The owner's log reaches the test through a pipe, and the move is logged once confirmed: wait for it.
    await owner.until(() => owner.logs.find((line) => line.msg === 'agent moved to another node'), 'the move to be logged');
    expect(owner.logs.find((line) => line.msg === 'agent moved to another node')?.['node']).toBe(survivor);
    const agents = ((await (await fetch(`${url}/api/agents`)).json()) as { agents: { roleName: string; state: string }[] }).agents;
    expect(agents.find((agent) => agent.roleName === 'worker')?.state).toBe('remote');
    hosts[survivor]?.signal('SIGTERM');
    expect(await hosts[survivor]?.done).toBe(0);
    owner.signal('SIGTERM');
    expect(await owner.done).toBe(0);
  });
});

import { expect, it } from 'vitest';
import { type EventBus, NodeActions, NodeDirectory } from '../../../src/bus/index.js';
import { systemClock } from '../../../src/clock.js';
import { randomIds } from '../../../src/ids.js';
import { MemoryLogger } from '../../../src/logger.js';
import { type Runtime, NodeHost, createRuntime } from '../../../src/runtime/index.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import type { ChatRequest, ScriptReply } from '../../../src/llm/index.js';
import { Actions, type JsonValue, type Task, createTask } from '../../../src/task/index.js';
import type { ScriptStep } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../../support/natsBus.js';
import { until } from '../../support/runtimeFixture.js';
import { type RoleStep, delegationChain, scriptByRole } from '../../support/scriptByRole.js';
import { ReplyingModel } from '../../support/workerModel.js';

const natsServer = natsServerForFile();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();

let societies = 0;

/** How often the test's nodes say they are up: a test that wants one silent advances the directory's simulated clock past three of these. */
const heartbeatMs = 60_000;

/**
 * One society on a real nats-server: an owner runtime (its directory on `directoryClock`) and a
 * node host per entry of `nodes`, each on its own NATS connection, as separate processes would be.
 */
async function society(
  script: Record<string, RoleStep[]>,
  nodes: Record<string, string[]>,
  options: {
    directoryClock?: SimulatedClock;
    nodeReply?: (request: ChatRequest) => ScriptStep;
    owner?: { mailboxLimit?: number; maxLanesPerAgent?: number };
  } = {},
) {
  const name = `placement-${++societies}`;
  const scripted = scriptByRole(script);
  const connect = async (): Promise<EventBus> => (await natsBus({ servers: natsServer().url, society: name })).bus;
  const ownerLogger = new MemoryLogger();
  const ownerBus = await connect();
  const directory = new NodeDirectory(ownerBus, { clock: options.directoryClock ?? systemClock, logger: ownerLogger });
  later(async () => {
    directory.close();
    await Promise.resolve();
  });
  const rt = await createRuntime({
    bus: ownerBus,
    nodes: { directory, nodeRequestTimeoutMs: 5_000 },
    model: new ReplyingModel(scripted.reply),
    logger: ownerLogger,
    ...options.owner,
  });
  const hosts: Record<string, { host: NodeHost; bus: EventBus; announce: (incarnation?: string) => void }> = {};
  for (const [node, roles] of Object.entries(nodes)) {
    const bus = await connect();
    const host = new NodeHost({ bus, node, roles, model: new ReplyingModel(options.nodeReply ?? scripted.reply), logger: new MemoryLogger() });
    const announce = (incarnation = 'boot-1'): void =>
      bus.publish(
        createTask(
          { from: node, to: 'owner', action: NodeActions.announce, parameters: { node, roles, heartbeatMs, incarnation } },
          { ids: randomIds, clock: systemClock },
        ),
      );
    hosts[node] = { host, bus, announce };
    announce();
  }
  // The owner first: stopping its agents, it tells their nodes, which must still be there to confirm.
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
    for (const { host } of Object.values(hosts)) await host.close();
  });
  await until(() => directory.nodes().length === Object.keys(nodes).length, 'every node to be heard', 100_000);
  return { rt, hosts, directory, scripted, ownerLogger };
}

/** Waits (for events, not time) until `rt.agents()` satisfies `condition`. */
async function agentsUntil(rt: Runtime, condition: (states: Record<string, string>) => boolean, what: string): Promise<Record<string, string>> {
  const states = (): Record<string, string> => Object.fromEntries(rt.agents().map((agent) => [agent.roleName, agent.state]));
  await until(() => condition(states()), what, 200_000);
  return states();
}

describeWithNatsServer('agents placed on the nodes of a society on NATS (owner and node hosts on a real nats-server)', () => {
  it('root delegates to a manager on one node, which delegates to a worker on another; spawns and terminations go through the owner', async () => {
    const { rt, hosts, scripted } = await society(delegationChain(), { 'node-a': ['manager'], 'node-b': ['worker'] });
    const notices: Task[] = [];
    const watching = rt.bus.on(Actions.terminated).subscribe((task) => notices.push(task));
    const taskId = await rt.submit('what is the number?');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'The number is 42.' } });
    expect(scripted.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
    // The owner recorded every agent of the tree, wherever it ran, and their terminations.
    const agents = rt.agents();
    expect(
      agents.map((agent) => [agent.roleName, agent.status, agent.parentAgentId === null ? null : agents.find((a) => a.id === agent.parentAgentId)?.roleName]),
    ).toEqual([
      ['root', 'active', null],
      ['manager', 'terminated', 'root'],
      ['worker', 'terminated', 'manager'],
    ]);
    // The manager, on its node, said it terminated in the user's session: root's turn asked for it across NATS.
    const manager = agents.find((agent) => agent.roleName === 'manager')?.id;
    await until(() => notices.some((notice) => notice.from === manager), 'the manager to say it terminated', 100_000);
    watching.unsubscribe();
    expect(notices.find((notice) => notice.from === manager)).toMatchObject({ to: 'root', sessionId: answer.sessionId, parentId: taskId });
    await until(() => hosts['node-a']?.host.hosted().length === 0 && hosts['node-b']?.host.hosted().length === 0, 'the nodes to stop their agents', 100_000);
  });

  it('an agent on a node delegates by description: the owner routes, and the worker it spawns for it runs on another node', async () => {
    const delegate = (role: string, task: string): RoleStep => ({ toolCalls: [{ name: 'delegate_task', arguments: { role, task } }] });
    const heard = (request: ChatRequest): ScriptReply => ({ text: `heard: ${request.messages.findLast((message) => message.role === 'tool')?.content ?? ''}` });
    const { rt, scripted } = await society(
      {
        root: [delegate('manager', 'get the number'), heard],
        manager: [delegate('someone who finds numbers in text', 'find the number'), heard],
        worker: [{ text: '42' }],
      },
      { 'node-a': ['manager'], 'node-b': ['worker'] },
    );
    await rt.createRole({ name: 'manager', prompt: 'You manage.', description: 'Manages work and hands parts of it out.' });
    await rt.createRole({ name: 'worker', prompt: 'You find numbers.', description: 'Finds numbers in text.' });
    const answer = await rt.waitForAnswer(await rt.submit('what is the number?'), { timeoutMs: 60_000 });
    expect(answer.status).toBe('completed');
    expect(JSON.stringify(answer.result)).toContain('42');
    expect(scripted.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
    const agents = rt.agents();
    const manager = agents.find((agent) => agent.roleName === 'manager');
    const worker = agents.find((agent) => agent.roleName === 'worker');
    expect(worker?.parentAgentId).toBe(manager?.id);
    expect(worker?.state).toBe('remote');
  });

  it("a node's agent creates a role with handoffs through the owner, which checks them as rt.createRole does", async () => {
    const createRole = (name: string, handoffs: string[]): RoleStep => ({ toolCalls: [{ name: 'create_role', arguments: { name, prompt: 'P.', handoffs } }] });
    const heard = (request: ChatRequest): ScriptReply => ({ text: request.messages.findLast((message) => message.role === 'tool')?.content ?? '' });
    const { rt } = await society(
      {
        root: [{ toolCalls: [{ name: 'delegate_task', arguments: { role: 'manager', task: 'make roles' } }] }, heard],
        manager: [createRole('clash', ['Billing', 'billing']), createRole('triage', ['billing', 'user']), heard],
      },
      { 'node-a': ['manager'] },
    );
    await rt.createRole({ name: 'manager', prompt: 'You manage.' });
    const answer = await rt.waitForAnswer(await rt.submit('make the roles'), { timeoutMs: 60_000 });
    expect(answer.status).toBe('completed');
    expect(rt.roles().find((role) => role.name === 'triage')?.handoffs).toEqual(['billing', 'user']);
    expect(rt.roles().some((role) => role.name === 'clash')).toBe(false);
  });

  it("keeps a node's agent's graph on its node, and refuses it the society's graph, which is the owner's", async () => {
    const both = (request: ChatRequest): ScriptReply => ({
      text: request.messages
        .filter((message) => message.role === 'tool')
        .map((message) => message.content)
        .join('\n'),
    });
    const note = (graph: string): { name: string; arguments: unknown } => ({ name: 'add_note', arguments: { content: `a note for ${graph}`, graph } });
    const { rt } = await society({ keeper: [{ toolCalls: [note('society'), note('own')] }, both] }, { 'node-a': ['keeper'] });
    await rt.createRole({ name: 'keeper', prompt: 'You keep notes.', tools: { graphs: ['own', 'society'] } });
    const keeper = await rt.spawn({ role: 'keeper' });
    const answer = await rt.waitForAnswer(await rt.send(keeper, 'keep notes'), { timeoutMs: 60_000 });
    const [shared, own] = (answer.result as { text: string }).text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(shared).toEqual({
      code: 'invalid_input',
      error: "add_note failed: graph: the society's graph is kept by the owner process, which agents hosted on a node do not reach; use your own graph",
    });
    expect(own).toMatchObject({ note: { content: 'a note for own' } });
    expect((await rt.graph('society')).total).toBe(0);
  });

  it('places on the least loaded node announcing the role, and shows placed agents as remote', async () => {
    const idle: RoleStep[] = Array.from({ length: 4 }, () => ({ text: 'idle' }));
    const { rt, hosts } = await society({ poet: idle }, { 'node-a': ['poet'], 'node-b': ['poet'] });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const spawned = [await rt.spawn({ role: 'poet' }), await rt.spawn({ role: 'poet' })];
    expect(spawned.map((id) => rt.agent(id)?.state)).toEqual(['remote', 'remote']);
    expect([hosts['node-a']?.host.hosted(), hosts['node-b']?.host.hosted()].map((ids) => ids?.length)).toEqual([1, 1]);
    const answer = await rt.waitForAnswer(await rt.send(spawned[1] ?? '', 'hello'), { timeoutMs: 60_000 });
    expect(answer).toMatchObject({ status: 'completed', from: spawned[1], result: { text: 'idle' } });
    await rt.terminate(spawned[0] ?? '', { by: 'user', mode: 'abort' });
    await until(() => hosts['node-a']?.host.hosted().length === 0 || hosts['node-b']?.host.hosted().length === 0, 'its node to stop it', 100_000);
    expect(rt.agent(spawned[0] ?? '')?.status).toBe('terminated');
    // Model calls are counted on the node; the owner's ledger has them once the agent stops.
    await rt.terminate(spawned[1] ?? '', { by: 'user', mode: 'abort' });
    expect(rt.agent(spawned[1] ?? '')?.usage.calls).toBe(1);
    expect(rt.usage().calls).toBe(1);
  });

  it("fails a Task in progress at once with agent_unreachable when its agent's node goes silent, and takes the agent back when it is heard again", async () => {
    const directoryClock = new SimulatedClock();
    // The poet's first call never ends (its node is as good as gone); once its node is back it answers.
    const steps: ScriptStep[] = [{ hang: true }, { text: 'back' }];
    const nodeReply = (): ScriptStep => steps.shift() ?? { text: 'no more' };
    const { rt, hosts, directory } = await society({}, { 'node-a': ['poet'] }, { directoryClock, nodeReply });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    const asked = await rt.send(poet, 'write, slowly');
    await agentsUntil(rt, () => hosts['node-a']?.host.hosted().length === 1, 'the poet to be hosted');
    // Three heartbeats missed on the directory's clock: no real time decides it.
    directoryClock.advance(3 * heartbeatMs);
    expect(directory.node('node-a')?.status).toBe('unreachable');
    const failed = await rt.waitForAnswer(asked, { timeoutMs: 60_000 });
    expect(failed).toMatchObject({ status: 'failed', from: poet, error: { code: 'agent_unreachable' } });
    expect(failed.error?.message).toContain('node-a is unreachable');
    expect(rt.agent(poet)?.state).toBe('unreachable');
    await expect(rt.send(poet, 'are you there?')).rejects.toMatchObject({ code: 'agent_unreachable' });
    hosts['node-a']?.announce();
    await until(() => rt.agent(poet)?.state === 'remote', 'the poet to be reachable again', 100_000);
    expect(await rt.waitForAnswer(await rt.send(poet, 'again'), { timeoutMs: 60_000 })).toMatchObject({ status: 'completed', result: { text: 'back' } });
  });

  it('tracks at most mailboxLimit + maxLanesPerAgent Tasks in progress per remote agent: past it the oldest is forgotten, with a log line', async () => {
    const directoryClock = new SimulatedClock();
    const owner = { mailboxLimit: 1, maxLanesPerAgent: 1 };
    const { rt, hosts, ownerLogger } = await society({}, { 'node-a': ['poet'] }, { directoryClock, nodeReply: () => ({ hang: true }), owner });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    const node = hosts['node-a'];
    if (node === undefined) throw new Error('no node');
    // Three Tasks for the poet from an agent elsewhere in the society; its model never answers.
    const cancel = new AbortController();
    const asks = [1, 2, 3].map((n) =>
      createTask({ from: 'someone', to: poet, action: 'execute', parameters: { text: `poem ${n}` } }, { ids: randomIds, clock: systemClock }),
    );
    const settled = new Set<string>();
    const replies = asks.map((task) => node.bus.request(task, { timeoutMs: 600_000, signal: cancel.signal }).finally(() => settled.add(task.id)));
    later(() => {
      cancel.abort();
      return Promise.allSettled(replies).then(() => undefined);
    });
    const forgot = (): unknown[] => ownerLogger.entries.filter((entry) => entry.message === 'remote agent: stopped tracking its oldest Task in progress');
    await until(() => forgot().length === 1, 'the owner to stop tracking one Task', 100_000);
    expect(forgot()[0]).toMatchObject({ fields: { agentId: poet, taskId: asks[0]?.id, maxTracked: 2 } });
    // Its node falls silent: the two it still tracks are failed on the poet's behalf; the oldest is not the owner's to answer any more.
    directoryClock.advance(3 * heartbeatMs);
    const [, second, third] = replies;
    expect(await second).toMatchObject({ status: 'failed', error: { code: 'agent_unreachable' } });
    expect(await third).toMatchObject({ status: 'failed', error: { code: 'agent_unreachable' } });
    expect(settled.has(asks[0]?.id ?? '')).toBe(false);
    node.announce();
    await until(() => rt.agent(poet)?.state === 'remote', 'the poet to be reachable again', 100_000);
  });

  it('records the agents of a node that restarted (a new incarnation) terminated: they are gone', async () => {
    const { rt, hosts, ownerLogger } = await society({ poet: [] }, { 'node-a': ['poet'] });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    hosts['node-a']?.announce('boot-2');
    await until(() => rt.agent(poet)?.status === 'terminated', 'the poet to be recorded terminated', 100_000);
    expect(ownerLogger.entries.map((entry) => entry.message)).toContain('node restarted: what it hosted before is gone');
  });

  it('fails the spawn with agent_unreachable, and records the agent terminated, when the node never confirms the placement', async () => {
    const { rt, directory, ownerLogger } = await society({}, {});
    const ghostBus = (await natsBus({ servers: natsServer().url, society: `placement-${societies}` })).bus;
    // A node that announces a role but hosts nothing: no NodeHost answers its placements.
    ghostBus.publish(
      createTask(
        {
          from: 'node-ghost',
          to: 'owner',
          action: NodeActions.announce,
          parameters: { node: 'node-ghost', roles: ['poet'], heartbeatMs: 60_000, incarnation: 'boot-1' },
        },
        { ids: randomIds, clock: systemClock },
      ),
    );
    await until(() => directory.nodes().length === 1, 'the ghost node to be heard', 100_000);
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const refused = await rt.spawn({ role: 'poet' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'agent_unreachable' });
    expect((refused as Error).message).toContain('node node-ghost did not confirm');
    expect(
      rt
        .agents()
        .filter((agent) => agent.roleName === 'poet')
        .map((agent) => agent.status),
    ).toEqual(['terminated']);
    expect(ownerLogger.entries.some((entry) => entry.level === 'info' && entry.message === 'agent placed on a node')).toBe(false);
  });

  it("holds the society's rules for a node's agents: the owner refuses an org request that breaks one, and a malformed one, naming why", async () => {
    const { rt, hosts } = await society({}, { 'node-a': ['poet'] });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const [first, second] = [await rt.spawn({ role: 'poet' }), await rt.spawn({ role: 'poet' })];
    const bus = hosts['node-a']?.bus;
    if (bus === undefined) throw new Error('no node');
    const ask = (from: string, action: string, parameters: Record<string, JsonValue>) =>
      bus.request(createTask({ from, to: 'owner', action, parameters }, { ids: randomIds, clock: systemClock }), { timeoutMs: 60_000 });
    // Only a parent terminates: a sibling may not, nor may a child its parent.
    expect(await ask(first, 'org.terminate', { agentId: second, reason: 'rivalry', mode: 'abort' })).toMatchObject({
      status: 'failed',
      error: { code: 'not_parent' },
    });
    expect(await ask(first, 'org.terminate', { agentId: 'root', reason: 'coup', mode: 'abort' })).toMatchObject({
      status: 'failed',
      error: { code: 'not_parent' },
    });
    expect(rt.agent(second)?.status).toBe('active');
    const malformed = await ask(first, 'org.spawn', { role: 'poet', extra: 'x' });
    expect(malformed).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    expect(malformed.error?.message).toContain('about');
    // A spawn by a node's agent makes its child, recorded by the owner under it (and placed on the node announcing its role).
    const spawned = await ask(first, 'org.spawn', { role: 'poet', about: null });
    expect(spawned.status).toBe('completed');
    const childId = String((spawned.result as { agentId?: unknown } | null)?.agentId);
    expect(rt.agent(childId)).toMatchObject({ parentAgentId: first, state: 'remote' });
  });

  it('a node refuses a malformed placement, a role it does not host and an agent it already hosts, naming why, and keeps working', async () => {
    const { rt, hosts } = await society({}, { 'node-a': ['poet'] });
    const node = hosts['node-a'];
    if (node === undefined) throw new Error('no node');
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    const place = (parameters: Record<string, JsonValue>) =>
      node.bus.request(createTask({ from: 'owner', to: 'node-a', action: 'nodes.spawn', parameters }, { ids: randomIds, clock: systemClock }), {
        timeoutMs: 60_000,
      });
    const role = (name: string): Record<string, JsonValue> => ({ id: `role-${name}`, name, prompt: 'p', createdBy: 'user', createdAt: 1 });
    const agent = (id: string): Record<string, JsonValue> => ({ id, roleId: 'role-x', parentAgentId: null, createdAt: 1 });
    const garbled = await place({ agent: 'nobody', role: 7, about: null });
    expect(garbled).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    expect(garbled.error?.message).toMatch(/parameters\.(agent|role)/);
    const otherRole = await place({ agent: agent('critic-1'), role: role('critic'), about: null });
    expect(otherRole).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    expect(otherRole.error?.message).toContain('does not host role "critic"');
    const twice = await place({ agent: agent(poet), role: role('poet'), about: null });
    expect(twice.error?.message).toContain('already hosted here');
    expect(node.host.hosted()).toEqual([poet]);
    // Still serving: the next placement lands.
    const next = await rt.spawn({ role: 'poet' });
    expect(node.host.hosted()).toEqual([poet, next]);
  });

  it('answers work sent from a node to an agent that is not live at once: unknown_agent, agent_terminated', async () => {
    const { rt, hosts } = await society({}, { 'node-a': ['poet'] });
    const bus = hosts['node-a']?.bus;
    if (bus === undefined) throw new Error('no node');
    const ask = (to: string) =>
      bus.request(createTask({ from: 'someone', to, action: 'execute', parameters: { text: 'hi' } }, { ids: randomIds, clock: systemClock }), {
        timeoutMs: 60_000,
      });
    expect(await ask('nobody-1')).toMatchObject({ status: 'failed', error: { code: 'unknown_agent' } });
    await rt.createRole({ name: 'solo', prompt: 'local' });
    const solo = await rt.spawn({ role: 'solo' });
    await rt.terminate(solo, { by: 'user', mode: 'abort' });
    expect(await ask(solo)).toMatchObject({ status: 'failed', error: { code: 'agent_terminated' } });
  });

  it('a new owner process makes the nodes let go, quietly, of the agents an earlier one placed (it restores them itself)', async () => {
    const { rt, hosts } = await society({}, { 'node-a': ['poet'] });
    await rt.createRole({ name: 'poet', prompt: 'You write poems.' });
    const poet = await rt.spawn({ role: 'poet' });
    const node = hosts['node-a'];
    if (node === undefined) throw new Error('no node');
    expect(node.host.hosted()).toEqual([poet]);
    const fromPoet: string[] = [];
    node.bus.on('*').subscribe((task) => {
      if (task.from === poet) fromPoet.push(`${task.action} ${task.status}`);
    });
    // The owner restarted (kill -9 and back): a new runtime on the society, made owner of its nodes.
    const restartedBus = (await natsBus({ servers: natsServer().url, society: `placement-${societies}` })).bus;
    const directory = new NodeDirectory(restartedBus, { clock: systemClock, logger: new MemoryLogger() });
    const restarted = await createRuntime({ bus: restartedBus, nodes: { directory }, model: new ReplyingModel(() => ({ text: 'ok' })) });
    later(async () => {
      await restarted.shutdown({ drainTimeoutMs: 0 });
      directory.close();
    });
    await until(() => node.host.hosted().length === 0, 'the node to let go of the poet', 100_000);
    // Stopped as for a restart: nothing cancelled, nothing announced (its work is in the owner's store).
    expect(fromPoet).toEqual([]);
  });
});

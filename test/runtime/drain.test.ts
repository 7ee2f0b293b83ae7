import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { z } from 'zod';
import { ScriptedModel, SimulatedClock, societyOf } from '../../src/testing.js';
import { Actions, finalStatuses, type Task } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import { lastToolResult, modelByRole, scriptByRole } from '../support/scriptByRole.js';
import { HeldCallsModel } from '../support/heldCalls.js';
import { duringSpawn, quietRuntime, recordBus, rejectedCode, until } from '../support/runtimeFixture.js';
import { WorkerModel } from '../support/workerModel.js';

// Draining, by example: the terminate_agent tool in both modes, a cascade whose parent's turn
// waits on its child, a drain that starts while spawning, a shutdown that cuts a drain short,
// and the options refused.

/** A tool that waits until the test opens it, so a turn is surely in progress while the test acts. */
function gateTool(): { tool: ReturnType<typeof defineTool>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const tool = defineTool({
    name: 'wait_gate',
    description: 'Waits until the test opens the gate.',
    parameters: z.object({}),
    execute: async () => {
      await opened;
      return jsonResult({ opened: true });
    },
  });
  return { tool, open };
}

function finalAnswer(rt: Runtime, taskId: string): Task | undefined {
  return rt.user.inbox().find((task) => task.id === taskId && finalStatuses.has(task.status));
}

describe('draining', () => {
  it("terminate_agent drains by default: the child's turn in progress finishes, with its own child's help, before either is released", async () => {
    const gate = gateTool();
    const ids = { manager: '', worker: '' };
    const script = scriptByRole({
      root: [
        () => ({ toolCalls: [{ name: 'terminate_agent', arguments: { agentId: ids.manager, reason: 'wrap up' } }] }),
        (request) => ({ text: `terminated: ${JSON.stringify(lastToolResult(request))}` }),
      ],
      manager: [
        () => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: ids.worker, task: 'find the number' } }] }),
        (request) => ({ text: `manager says ${String(lastToolResult(request)['result'])}` }),
      ],
      worker: [{ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: '42' }],
    });
    const { rt } = await quietRuntime({ model: new ScriptedModel(Array.from({ length: 6 }, () => script.reply)), tools: [gate.tool] });
    await rt.createRole({ name: 'manager', prompt: 'You manage.' });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    ids.manager = await rt.spawn({ role: 'manager', parent: 'root' });
    ids.worker = await rt.spawn({ role: 'worker', parent: ids.manager });
    const seen = recordBus(rt);

    // The manager's turn waits on its worker, which waits at the gate.
    const managed = await rt.send(ids.manager, 'get the number');
    await until(() => rt.agent(ids.worker)?.state === 'running.turn.acting', 'the worker at the gate');
    const rootTask = await rt.submit('terminate the manager');
    await until(() => rt.agent(ids.manager)?.state === 'draining' && rt.agent(ids.worker)?.state === 'draining', 'the drain');
    expect(await rejectedCode(rt.send(ids.worker, 'more?'))).toBe('agent_terminated');
    gate.open();

    const rootAnswer = await rt.waitForAnswer(rootTask, { timeoutMs: 10_000 });
    expect(rootAnswer.result).toEqual({ text: `terminated: {"ok":true,"terminatedAgentId":"${ids.manager}","mode":"drain"}` });
    expect(finalAnswer(rt, managed)).toMatchObject({ status: 'completed', result: { text: 'manager says 42' } });
    const index = (match: (task: Task) => boolean): number => seen.findIndex(match);
    const workerAnswered = index((task) => task.from === ids.worker && task.to === ids.manager && task.status === 'completed');
    const managerAnswered = index((task) => task.id === managed && task.status === 'completed');
    const released = [ids.worker, ids.manager].map((id) => index((task) => task.action === Actions.terminated && task.from === id));
    expect(Math.min(workerAnswered, managerAnswered, ...released)).toBeGreaterThanOrEqual(0);
    expect(Math.max(workerAnswered, managerAnswered)).toBeLessThan(Math.min(...released));
    expect(
      societyOf(rt)
        .terminations()
        .map((t) => [t.agentId, t.terminatedBy, t.mode, t.reason]),
    ).toEqual([
      [ids.manager, 'root', 'drain', 'wrap up'],
      [ids.worker, ids.manager, 'drain', 'wrap up'],
    ]);
    expect(script.remaining()).toEqual({ root: 0, manager: 0, worker: 0 });
    await rt.shutdown();
  });

  it('while it drains, the chart, rt.agent(id).state and the inspector say draining, and the lanes and queued Tasks are answered in it', async () => {
    const model = new HeldCallsModel();
    // The worker's state values as the inspector sees them, in order.
    const values: string[] = [];
    let worker = '';
    const inspect = (event: InspectionEvent): void => {
      if (event.type !== '@xstate.snapshot' || worker === '' || (event.actorRef as { id?: unknown }).id !== worker) return;
      values.push(JSON.stringify((event.snapshot as { value?: unknown }).value));
    };
    const { rt } = await quietRuntime({ model, inspect });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    worker = await rt.spawn({ role: 'worker' });
    const first = await rt.send(worker, 'one');
    const other = await rt.send(worker, 'two');
    const queued = await rt.send(worker, 'one again', { sessionId: first });
    await until(() => model.waiting.length === 2, 'two lanes at the model');
    // What the agent says of itself when each of its answers leaves.
    const statesAtAnswers: string[] = [];
    rt.bus.on('*').subscribe((task) => {
      if (task.from === worker && task.to === 'user' && finalStatuses.has(task.status)) statesAtAnswers.push(rt.agent(worker)?.state ?? 'gone');
    });

    const terminating = rt.terminate(worker, { by: 'user' });
    expect(rt.agent(worker)).toMatchObject({ state: 'draining', lanes: 2, queued: 1 });
    expect(values.at(-1)).toBe('{"draining":"turn"}');
    expect(await rejectedCode(rt.send(worker, 'too late'))).toBe('agent_terminated');
    for (const call of model.waiting) call.release();
    await until(() => model.callOf(queued) !== undefined, 'the queued Task in its lane');
    expect(rt.agent(worker)).toMatchObject({ state: 'draining', lanes: 1, queued: 0 });
    model.callOf(queued)?.release();
    await terminating;

    for (const taskId of [first, other, queued]) expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'completed' });
    expect(statesAtAnswers).toEqual(['draining', 'draining', 'draining']);
    // Running until the drain, then draining (its lanes, then drained) until told to stop.
    const drained = values.slice(values.indexOf('{"draining":"turn"}'));
    expect(values.slice(0, values.length - drained.length).every((value) => value.startsWith('{"running"') || value.startsWith('{"spawning"'))).toBe(true);
    expect([...new Set(drained)]).toEqual(['{"draining":"turn"}', '{"draining":"idle"}', '"stopping"', '"terminated"']);
    await rt.shutdown();
  });

  it('terminate_agent with mode abort cancels the child’s work at once', async () => {
    let worker = '';
    const root = new ScriptedModel([
      () => ({ toolCalls: [{ name: 'terminate_agent', arguments: { agentId: worker, mode: 'abort' } }] }),
      (request) => ({ text: JSON.stringify(lastToolResult(request)) }),
    ]);
    const hanging = new ScriptedModel([{ hang: true }]);
    const { rt } = await quietRuntime({ model: modelByRole({ root, worker: hanging }) });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    worker = await rt.spawn({ role: 'worker', parent: 'root' });
    const stuck = await rt.send(worker, 'never finishes');
    const queued = await rt.send(worker, 'waits behind it', { sessionId: stuck });
    await until(() => hanging.requests.length === 1, 'the hanging call');

    const answer = await rt.waitForAnswer(await rt.submit('stop the worker now'), { timeoutMs: 10_000 });
    expect(JSON.parse((answer.result as { text: string }).text)).toEqual({ ok: true, terminatedAgentId: worker, mode: 'abort' });
    for (const taskId of [stuck, queued]) expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'canceled', error: { code: 'agent_terminated' } });
    expect(societyOf(rt).terminations()).toEqual([expect.objectContaining({ agentId: worker, mode: 'abort' })]);
    await rt.shutdown();
    expect(hanging.requests).toHaveLength(1);
    root.assertUsedUp();
  });

  it('a draining agent still plans and compresses its own context in the turns it finishes, but spawns no child', async () => {
    const gate = gateTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'wait_gate', arguments: {} }] },
      { text: 'first done' },
      {
        toolCalls: [
          { name: 'create_plan', arguments: { goal: 'finish', steps: [{ title: 'wrap up' }] } },
          { name: 'compress_context', arguments: { summary: 'the first task is done', keepRecent: 2 } },
          { name: 'spawn_agent', arguments: { role: 'worker' } },
        ],
      },
      (request) => ({
        text: JSON.stringify(request.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content) as unknown)),
      }),
    ]);
    const { rt } = await quietRuntime({ model, tools: [gate.tool] });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const id = await rt.spawn({ role: 'worker' });
    // One session: the second waits for the first's turn, then compresses the context they share.
    const first = await rt.send(id, 'first');
    const second = await rt.send(id, 'second', { sessionId: first });
    await until(() => rt.agent(id)?.state === 'running.turn.acting', 'the turn at the gate');
    const terminating = rt.terminate(id, { by: 'user' });
    gate.open();
    await terminating;

    expect(finalAnswer(rt, first)).toMatchObject({ status: 'completed', result: { text: 'first done' } });
    const results = JSON.parse((finalAnswer(rt, second)?.result as { text: string }).text) as Record<string, unknown>[];
    expect(results.slice(-3)).toEqual([
      expect.objectContaining({ planId: second }),
      expect.objectContaining({ kept: expect.any(Number) as number }),
      expect.objectContaining({ error: expect.stringContaining(`agent "${id}" is terminated`) as unknown }),
    ]);
    model.assertUsedUp();
    await rt.shutdown();
  });

  it('an agent told to drain while still spawning works through the Tasks it queued there', async () => {
    const { rt } = await quietRuntime({ model: new WorkerModel() });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const caught = await duringSpawn(rt, { role: 'worker' }, (id) => {
      const sends = [rt.send(id, 'work 0'), rt.send(id, 'work 0')];
      return { sends, terminating: rt.terminate(id, { by: 'user' }) };
    });
    expect(rt.agent(caught.agentId)?.state).toBe('draining');
    const sent = await Promise.all(caught.result.sends);
    await caught.result.terminating;
    for (const taskId of sent) expect(finalAnswer(rt, taskId)).toMatchObject({ status: 'completed', result: { text: `done: ${taskId}` } });
    expect(rt.agent(caught.agentId)?.state).toBe('terminated');
    await rt.shutdown();
  });

  it('a shutdown cuts a drain short: what is left is canceled, and the termination is recorded', async () => {
    const clock = new SimulatedClock(1_000);
    const model = new WorkerModel();
    const { rt } = await quietRuntime({ clock, model });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const id = await rt.spawn({ role: 'worker' });
    const stuck = await rt.send(id, 'hang');
    await until(() => model.requests.length === 1, 'the hanging call');
    const terminating = rt.terminate(id, { by: 'user', reason: 'going', drainTimeoutMs: 60_000 });

    const shutdown = rt.shutdown({ drainTimeoutMs: 10 });
    await until(() => clock.pending >= 2, 'both deadlines');
    clock.advance(10);
    const summary = await shutdown;
    await terminating;
    expect(summary).toMatchObject({ drained: false });
    expect(finalAnswer(rt, stuck)).toMatchObject({ status: 'canceled', error: { code: 'agent_terminated' } });
    expect(finalAnswer(rt, stuck)?.error?.message).toContain('going (drain cut short by shutdown)');
    expect(
      societyOf(rt)
        .terminations()
        .filter((t) => t.agentId === id),
    ).toEqual([expect.objectContaining({ mode: 'drain', reason: 'going' })]);
    expect(clock.pending).toBe(0);
    expect(model.requests).toHaveLength(1);
  });

  it('refuses a bad mode, a bad deadline or an unknown option, naming it, and changes nothing', async () => {
    const { rt } = await quietRuntime();
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const id = await rt.spawn({ role: 'worker' });
    const bad = [
      { by: 'user', mode: 'later' },
      { by: 'user', drainTimeoutMs: -1 },
      { by: 'user', drainTimeoutMs: 1.5 },
      { by: 'user', drainTimeoutMs: 2 ** 31 },
      { by: 'user', force: true },
      { by: 'not an id' },
    ];
    const fields = ['options.mode', 'options.drainTimeoutMs', 'options.drainTimeoutMs', 'options.drainTimeoutMs', 'options', 'options.by'];
    for (const [index, options] of bad.entries()) {
      const error = await rt.terminate(id, options as never).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: 'invalid_input' });
      expect((error as Error).message.startsWith(fields[index] ?? '?')).toBe(true);
    }
    expect(rt.agent(id)).toMatchObject({ status: 'active', state: 'running.idle' });
    expect(societyOf(rt).terminations()).toEqual([]);
    await rt.shutdown();
  });
});

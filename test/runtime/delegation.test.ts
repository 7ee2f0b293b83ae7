import { societyOf } from '../../src/testing.js';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { Actions, type Task } from '../../src/task/index.js';
import { MemoryLogger, sequentialIds } from '../../src/testing.js';
import { echoTool, quietRuntime, recordBus } from '../support/runtimeFixture.js';

// End to end over the real runtime: the offline model's delegation playbook, the step limit,
// and a model that writes arguments that are not JSON.

describe('delegation, end to end', () => {
  it('the offline model spawns a child, delegates, lets it go and answers the user', async () => {
    const rt = await createRuntime({ logger: new MemoryLogger(), ids: sequentialIds() });
    const seen = recordBus(rt);
    const taskId = await rt.submit('write a haiku about rain');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });

    expect(answer).toMatchObject({ id: taskId, from: 'root', to: 'user', status: 'completed' });
    expect(JSON.stringify(answer.result)).toMatch(/Rain on the roof/);

    const spawned = seen.findIndex((task) => task.action === Actions.spawned && task.to === 'root');
    const child = seen[spawned]?.from ?? '';
    expect(child).toMatch(/^poet-/);
    const isDelegation = (task: Task): boolean => task.action === Actions.execute && task.from === 'root' && task.to === child;
    const delegated = seen.findIndex((task) => isDelegation(task) && task.status === 'submitted');
    const delegationId = seen[delegated]?.id;
    const childDone = seen.findIndex((task) => task.id === delegationId && task.from === child && task.to === 'root' && task.status === 'completed');
    const childGone = seen.findIndex((task) => task.action === Actions.terminated && task.from === child && task.to === 'root');
    const rootDone = seen.findIndex((task) => task.id === taskId && task.from === 'root' && task.to === 'user' && task.status === 'completed');

    const order = [spawned, delegated, childDone, childGone, rootDone];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(seen[delegated]?.parentId).toBe(taskId);
    // Both notices about the child belong to the user's session, as the root's turn that spawned and let it go.
    const sessionId = seen[delegated]?.sessionId;
    expect(seen[spawned]).toMatchObject({ sessionId, parentId: taskId });
    expect(seen[childGone]).toMatchObject({ sessionId, parentId: taskId });
    expect(rt.agent(child)).toMatchObject({ status: 'terminated', state: 'terminated' });
    expect(societyOf(rt).terminations()).toEqual([expect.objectContaining({ agentId: child, terminatedBy: 'root', reason: 'task done' })]);

    const summary = await rt.shutdown();
    expect(summary).toMatchObject({ drained: true, agents: 2, pendingTasks: 0 });
  });

  it('a turn that keeps calling tools stops at maxSteps with a step_limit failure', async () => {
    const loop = () => ({ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] });
    const { rt, model } = await quietRuntime({ maxSteps: 2, tools: [echoTool], steps: [loop, loop, { text: 'next task' }] });
    const taskId = await rt.submit('loop forever');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });

    expect(answer).toMatchObject({ status: 'failed', error: { code: 'step_limit' } });
    expect(model.requests).toHaveLength(2);
    // The agent survives its own runaway turn and takes the next task.
    const next = await rt.waitForAnswer(await rt.submit('and now?'), { timeoutMs: 5_000 });
    expect(next).toMatchObject({ status: 'completed', result: { text: 'next task' } });
    model.assertUsedUp();
    await rt.shutdown();
  });

  it('tool arguments that are not JSON come back to the model as an error it can recover from', async () => {
    const { rt, model } = await quietRuntime({
      tools: [echoTool],
      steps: [{ toolCalls: [{ name: 'echo', arguments: '{not json' }] }, { text: 'recovered' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('use the echo tool'), { timeoutMs: 5_000 });

    expect(answer).toMatchObject({ status: 'completed', result: { text: 'recovered' } });
    expect(model.requests).toHaveLength(2);
    const toolMessages = model.requests[1]?.messages.filter((message) => message.role === 'tool') ?? [];
    expect(toolMessages).toHaveLength(1);
    expect(toolMessages[0]?.name).toBe('echo');
    expect(toolMessages[0]?.content).toContain('not valid JSON');
    model.assertUsedUp();
    await rt.shutdown();
  });
});

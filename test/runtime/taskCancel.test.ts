import { afterEach, describe, expect, it } from 'vitest';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import type { Task } from '../../src/task/index.js';
import { Gates, commandModel } from '../support/a2aSociety.js';

let rt: Runtime | undefined;
afterEach(async () => {
  await rt?.shutdown({ drainTimeoutMs: 0 });
  rt = undefined;
});

describe('rt.cancel', () => {
  it('stops the turn on a Task (its model call aborted), takes back what it delegated, and drops a queued one', async () => {
    const gates = new Gates();
    rt = await createRuntime({ model: commandModel(gates) });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    const parent = await rt.submit(`run delegate_task {"agentId":"${worker}","task":"hold model child"}`);
    await gates.untilHeld('child');
    // Queued behind the delegating turn in the same session.
    const queued = await rt.submit('after that', { sessionId: parent });
    expect(await rt.cancel(queued, { reason: 'changed my mind' })).toBe(true);
    expect(await rt.waitForAnswer(queued, { timeoutMs: 10_000 })).toMatchObject({
      status: 'canceled',
      error: { code: 'aborted', message: 'canceled by user: changed my mind' },
    });
    const replies = rt.events('*');
    const childCanceled = new Promise<Task>((resolve) => replies.subscribe((task) => task.from === worker && task.status === 'canceled' && resolve(task)));
    expect(await rt.cancel(parent)).toBe(true);
    expect((await rt.waitForAnswer(parent, { timeoutMs: 10_000 })).status).toBe('canceled');
    // The worker's turn on the delegated Task was stopped too: its model call saw the abort.
    await gates.untilAborted('child');
    const child = await childCanceled;
    expect(child.to).toBe('root');
    expect(child.error?.message).toMatch(/^canceled by root: the delegating turn was stopped/);
    expect(await rt.cancel(parent)).toBe(false);
    await expect(rt.cancel('not a task id!')).rejects.toThrow(/taskId/);
  });

  it('takes back delegated work when delegate_task stops waiting for it: the delegate stops rather than work on for nobody', async () => {
    const gates = new Gates();
    rt = await createRuntime({ model: commandModel(gates) });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    const replies = rt.events('*');
    const childCanceled = new Promise<Task>((resolve) => replies.subscribe((task) => task.from === worker && task.status === 'canceled' && resolve(task)));
    const parent = await rt.submit(`run delegate_task {"agentId":"${worker}","task":"hold model slow","timeoutSeconds":0.05}`);
    // The delegating turn reads the timeout as its tool's result and answers; the delegate's model call is aborted.
    const answer = await rt.waitForAnswer(parent, { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    await gates.untilAborted('slow');
    const child = await childCanceled;
    expect(child.error?.message).toBe('canceled by root: the delegating turn stopped waiting after 50 ms');
  });
});

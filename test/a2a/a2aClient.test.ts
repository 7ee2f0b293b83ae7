import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { a2aAgentTool, a2aRemoteRole } from '../../src/a2a/index.js';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import type { Task } from '../../src/task/index.js';
import { Gates, a2aTools, commandModel } from '../support/a2aSociety.js';
import { type Served, serve } from '../support/httpServerFixture.js';

const token = 'remote-token';
let remote: Served;
let doomed: Served;
let local: Runtime;
const delegations: Task[] = [];
const gates = new Gates();

beforeAll(async () => {
  remote = await serve({ memory: true, model: commandModel(gates), runtime: { tools: a2aTools(gates) }, server: { token } });
  doomed = await serve({ memory: true, model: commandModel(), runtime: { tools: a2aTools(new Gates()) } });
  local = await createRuntime({
    model: commandModel(),
    tools: [a2aAgentTool({ name: 'remote', url: remote.url, token }), a2aAgentTool({ name: 'doomed', url: doomed.url, retries: 1, retryDelayMs: 10 })],
    remoteRoles: [a2aRemoteRole({ role: 'geography', url: remote.url, token, timeoutMs: 30_000 })],
  });
  local.events('a2a.*').subscribe((task) => delegations.push(task));
});
afterAll(async () => {
  await local.shutdown({ drainTimeoutMs: 0 });
  await remote.close();
});

describe('a troupe agent delegating to a remote A2A agent', () => {
  it('gives the work to a second troupe service over A2A and answers with its answer, the delegation a local Task', async () => {
    const taskId = await local.submit('run a2a_remote {"task":"what is the capital of France"}');
    const answer = await local.waitForAnswer(taskId, { timeoutMs: 30_000 });
    expect(answer.status).toBe('completed');
    expect(JSON.stringify(answer.result)).toMatch(/done: answer: [^]*capital of France/);
    const mine = delegations.filter((task) => task.parentId === taskId);
    expect(mine.map((task) => task.status)).toEqual(expect.arrayContaining(['submitted', 'completed']));
    expect(mine.at(-1)).toMatchObject({ from: 'root', to: 'a2a-remote', action: 'a2a.delegate', sessionId: taskId });
    // The remote's context is the local session: its own Task ran in a session of that id.
    expect(remote.rt.inbox().some((task) => task.sessionId === taskId && task.status === 'completed')).toBe(true);
  });

  it('fails the local delegation clearly when the remote dies mid-task', async () => {
    const taskId = await local.submit('run a2a_doomed {"task":"run wait_gate {\\"gate\\":\\"never\\"}"}');
    // The remote has the task and is working on it: its tool call came back as progress.
    await firstValueFrom(local.events('a2a.*').pipe(filter((task) => task.parentId === taskId && JSON.stringify(task.result).includes('calls wait_gate'))));
    await doomed.close();
    const answer = await local.waitForAnswer(taskId, { timeoutMs: 30_000 });
    const failed = delegations.filter((task) => task.parentId === taskId).at(-1);
    expect(failed?.status).toBe('failed');
    expect(failed?.error?.message).toMatch(
      /the remote A2A agent doomed \(http:\/\/127\.0\.0\.1:\d+\) stopped answering mid-task \(task [\w-]+\) after 2 attempts/,
    );
    // The agent read the failure as its tool's result.
    expect(JSON.stringify(answer.result)).toMatch(/stopped answering mid-task/);
  });

  it('delegates with delegate_task to a role a remote A2A agent serves, and gets its answer', async () => {
    const taskId = await local.submit('run delegate_task {"role":"geography","task":"what is the capital of France"}');
    const answer = await local.waitForAnswer(taskId, { timeoutMs: 30_000 });
    expect(JSON.stringify(answer.result)).toMatch(/done: answer: [^]*capital of France/);
    expect(delegations.filter((task) => task.parentId === taskId).at(-1)).toMatchObject({ to: 'a2a-geography', status: 'completed' });
  });

  it('cancels the remote task when the local Task is canceled: the remote turn is stopped too', async () => {
    const taskId = await local.submit('run delegate_task {"role":"geography","task":"hold model far"}');
    const remoteAnswer = firstValueFrom(
      remote.rt.events('*').pipe(filter((task) => task.to === 'user' && task.sessionId === taskId && task.status !== 'working')),
    );
    const localDelegation = firstValueFrom(local.events('a2a.*').pipe(filter((task) => task.parentId === taskId && task.status === 'canceled')));
    await gates.untilHeld('far');
    expect(await local.cancel(taskId)).toBe(true);
    expect((await local.waitForAnswer(taskId, { timeoutMs: 30_000 })).status).toBe('canceled');
    // The remote's model call was aborted: its A2A task, and the troupe Task behind it, canceled.
    await gates.untilAborted('far');
    expect(await remoteAnswer).toMatchObject({ status: 'canceled', error: { message: 'canceled by user: the A2A client canceled the task' } });
    expect(await localDelegation).toMatchObject({ to: 'a2a-geography', error: { code: 'aborted' } });
  });

  it('refuses a bad remote role clearly', async () => {
    expect(() => a2aRemoteRole({ role: 'Geo graphy', url: remote.url })).toThrow(/a2aRemoteRole\.role: must be 1–40 lower-case/);
    expect(() => a2aRemoteRole({ role: 'geo', url: 'not a url' })).toThrow(/a2aRemoteRole\.url/);
    expect(() => a2aRemoteRole({ role: 'geo', url: remote.url, retries: 99 })).toThrow(/a2aRemoteRole\.retries/);
    const twice = [a2aRemoteRole({ role: 'geo', url: remote.url }), a2aRemoteRole({ role: 'geo', url: remote.url })];
    await expect(createRuntime({ remoteRoles: twice })).rejects.toThrow('remoteRoles[1].role: "geo" is given twice');
  });
});

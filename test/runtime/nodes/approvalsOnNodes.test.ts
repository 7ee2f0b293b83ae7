import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { type EventBus, NodeActions, NodeDirectory } from '../../../src/bus/index.js';
import { systemClock } from '../../../src/clock.js';
import { randomIds } from '../../../src/ids.js';
import type { ChatRequest, ScriptReply } from '../../../src/llm/index.js';
import { MemoryLogger } from '../../../src/logger.js';
import type { ApprovalEvent } from '../../../src/index.js';
import { NodeHost, createRuntime } from '../../../src/runtime/index.js';
import { createTask } from '../../../src/task/index.js';
import { defineTool, jsonResult } from '../../../src/tools/index.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../../support/natsBus.js';
import { until } from '../../support/runtimeFixture.js';
import { type RoleStep, scriptByRole } from '../../support/scriptByRole.js';
import { ReplyingModel } from '../../support/workerModel.js';

const natsServer = natsServerForFile();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();

let societies = 0;

const heard = (request: ChatRequest): ScriptReply => ({ text: `heard: ${request.messages.findLast((message) => message.role === 'tool')?.content ?? ''}` });

/**
 * An owner on a real nats-server and one node hosting `worker`, whose `send_email` needs a
 * person's approval: root delegates mailing ana to a worker, which calls the tool on its node.
 */
async function society() {
  const name = `approvals-on-nodes-${++societies}`;
  const scripted = scriptByRole({
    root: [{ toolCalls: [{ name: 'delegate_task', arguments: { role: 'worker', task: 'mail ana' } }] }, heard],
    worker: [{ toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] }, heard] as RoleStep[],
  });
  const connect = async (): Promise<EventBus> => (await natsBus({ servers: natsServer().url, society: name })).bus;
  const ownerBus = await connect();
  const directory = new NodeDirectory(ownerBus, { clock: systemClock, logger: new MemoryLogger() });
  const ownerLogger = new MemoryLogger();
  const rt = await createRuntime({
    bus: ownerBus,
    nodes: { directory, nodeRequestTimeoutMs: 5_000 },
    model: new ReplyingModel(scripted.reply),
    logger: ownerLogger,
  });
  const sent: string[] = [];
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.email() }),
    needsApproval: true,
    execute: ({ to }) => {
      sent.push(to);
      return Promise.resolve(jsonResult({ sent: to }));
    },
  });
  const nodeBus = await connect();
  const roles = ['worker'];
  const host = new NodeHost({ bus: nodeBus, node: 'node-a', roles, model: new ReplyingModel(scripted.reply), tools: [sendEmail], logger: new MemoryLogger() });
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
    await host.close();
    directory.close();
  });
  const announcement = { node: 'node-a', roles, heartbeatMs: 60_000, incarnation: 'boot-1' };
  nodeBus.publish(createTask({ from: 'node-a', to: 'owner', action: NodeActions.announce, parameters: announcement }, { ids: randomIds, clock: systemClock }));
  await until(() => directory.nodes().length === 1, 'the node to be heard', 100_000);
  await rt.createRole({ name: 'worker', prompt: 'You send mail.', description: 'Sends mail.' });
  const waiting = firstValueFrom(rt.approvalEvents().pipe(filter((event: ApprovalEvent) => event.type === 'waiting')));
  const taskId = await rt.submit('mail ana');
  return { rt, sent, taskId, waiting: (await waiting).approval, nodeBus, ownerLogger };
}

describeWithNatsServer('a call waiting for a person on another node (owner and node host on a real nats-server)', () => {
  it("is listed by the owner, decided there, and runs once on its node; a second decision gets the node's refusal", async () => {
    const { rt, sent, taskId, waiting, nodeBus, ownerLogger } = await society();
    // A malformed notice from a node is dropped, naming the field, and changes nothing listed.
    const bad = { node: 'node-a', type: 'waiting', approval: { ...waiting, status: 'maybe' } };
    const notice = createTask({ from: 'node-a', to: 'owner', action: 'org.approval', parameters: bad }, { ids: randomIds, clock: systemClock });
    // The owner's own subscriber heard it first: it subscribed before this one.
    const arrived = new Promise<void>((resolve) => rt.bus.subscribe({ to: 'owner' }, (task) => task.id === notice.id && resolve()));
    nodeBus.publish(notice);
    await arrived;
    expect(ownerLogger.entries.find((entry) => entry.message.includes('malformed approval notice'))?.fields).toMatchObject({ field: 'approval.status' });
    const worker = rt.agents().find((agent) => agent.roleName === 'worker');
    expect(worker?.state).toBe('remote');
    expect(waiting).toMatchObject({ agentId: worker?.id, role: 'worker', tool: 'send_email', status: 'pending' });
    expect(rt.approvals().map((approval) => approval.id)).toEqual([waiting.id]);
    expect(rt.approvals({ agentId: worker?.id ?? '' })).toHaveLength(1);
    expect(rt.approvals({ agentId: 'root' })).toEqual([]);
    expect(sent).toEqual([]);

    const decided = await rt.decide(waiting.id, { action: 'approve', digest: waiting.digest, by: 'ana' });
    expect(decided).toMatchObject({ id: waiting.id, status: 'approved', decision: { action: 'approve', by: 'ana' } });
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
    expect(answer.status).toBe('completed');
    expect(JSON.stringify(answer.result)).toContain('ana@example.com');
    expect(sent).toEqual(['ana@example.com']);
    expect(rt.approvals()).toEqual([]);
    await expect(rt.decide(waiting.id, { action: 'approve' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a rejection made at the owner reaches the node: the call never runs, the worker reads why; a bad edit is refused naming the field', async () => {
    const { rt, sent, taskId, waiting } = await society();
    await expect(rt.decide(waiting.id, { action: 'edit', arguments: { to: 'not an address' } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('to') as unknown,
    });
    await expect(rt.decide(waiting.id, { action: 'approve', digest: 'f'.repeat(64) })).rejects.toMatchObject({ code: 'conflict' });
    expect(rt.approvals()).toHaveLength(1);
    await rt.decide(waiting.id, { action: 'reject', message: 'ana is on leave' });
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
    expect(JSON.stringify(answer.result)).toContain('ana is on leave');
    expect(sent).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing.js';
import type { Approval } from '../../src/task/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { mailTool } from '../support/mailTool.js';
import { until } from '../support/runtimeFixture.js';

// GET /api/approvals, GET and POST /api/approvals/:id and the event stream's `approval` events, over real HTTP on loopback.

const served = serverPerTest();
const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

interface ErrorBody {
  readonly error: { code: string; message: string; field: string | null };
}

const secret = 'hunter2-configured-secret';

/** A server whose root calls `send_email` (which needs approval) with `to`, then answers. */
async function mailing(to = 'ana@example.com', memory = false, held?: Promise<void>) {
  const { tool: sendEmail, runs } = mailTool(held);
  const model = new ScriptedModel([{ toolCalls: [{ name: 'send_email', arguments: { to, note: `key ${secret}` } }] }, { text: 'done' }]);
  const server = await served({ memory, model, runtime: { tools: [sendEmail] }, server: { secrets: [secret] } });
  const stream = await EventStreamClient.open(server.url, '/api/events');
  streams.push(stream);
  const { body } = await call<{ taskId: string }>(server.url, '/api/submit', { json: { text: 'mail ana' } });
  await until(() => server.rt.approvals().length === 1, 'an approval waiting');
  const listed = await call<{ approvals: Approval[] }>(server.url, '/api/approvals');
  const approval = listed.body.approvals[0] as Approval;
  return { ...server, runs, stream, taskId: body.taskId, listed, approval };
}

const approvalEvents = (stream: EventStreamClient) =>
  stream.events.filter((event) => event.event === 'approval').map((event) => JSON.parse(event.data) as { type: string; approval: Approval });

describe('approvals over HTTP', () => {
  it('lists the waiting call redacted, sends it on the event stream, and runs it once approved', async () => {
    const { url, rt, runs, stream, taskId, listed, approval } = await mailing();
    expect(listed.status).toBe(200);
    expect(listed.body.approvals).toHaveLength(1);
    expect(approval).toMatchObject({ tool: 'send_email', taskId, agentId: 'root', status: 'pending', reason: 'tool', decision: null });
    expect(approval.arguments).toBe(JSON.stringify({ to: 'ana@example.com', note: 'key [REDACTED]' }));
    expect(approval.digest).toBe(rt.approvals()[0]?.digest);
    expect((await call(url, '/api/approvals?agentId=root')).body).toEqual(listed.body);
    expect((await call(url, '/api/approvals?agentId=someone')).body).toEqual({ approvals: [] });
    expect((await call(url, `/api/approvals/${approval.id}`)).body).toEqual(approval);

    await stream.until((s) => approvalEvents(s).length === 1);
    expect(approvalEvents(stream)[0]).toEqual({ type: 'waiting', approval });
    expect(JSON.stringify(stream.events)).not.toContain(secret);

    const decided = await call<Approval>(url, `/api/approvals/${approval.id}`, { json: { action: 'approve', digest: approval.digest } });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: approval.id, status: 'approved', decision: { action: 'approve', by: 'http' } });
    expect(await answered(rt, taskId)).toMatchObject({ status: 'completed' });
    expect(runs).toEqual(['ana@example.com']);
    await stream.until((s) => approvalEvents(s).length === 2);
    expect(approvalEvents(stream)[1]).toMatchObject({ type: 'decided', approval: { id: approval.id, status: 'approved' } });
    expect((await call(url, '/api/approvals')).body).toEqual({ approvals: [] });
  });

  it('a rejection with a message never runs the call', async () => {
    const { url, rt, runs, taskId, approval } = await mailing('eve@example.com');
    const rejected = await call<Approval>(url, `/api/approvals/${approval.id}`, { json: { action: 'reject', message: 'eve left', by: 'ops' } });
    expect(rejected.body).toMatchObject({ status: 'rejected', decision: { action: 'reject', message: 'eve left', by: 'ops' } });
    await answered(rt, taskId);
    expect(runs).toEqual([]);
  });

  it('a second decision, while the approved call runs, is a 409 conflict and changes nothing', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { url, rt, runs, taskId, approval } = await mailing('ana@example.com', false, held);
    await call(url, `/api/approvals/${approval.id}`, { json: { action: 'approve' } });
    await until(() => runs.length === 1, 'the approved call running');
    const again = await call<ErrorBody>(url, `/api/approvals/${approval.id}`, { json: { action: 'reject' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', field: null });
    expect(again.body.error.message).toContain('decided already (started)');
    expect((await call<Approval>(url, `/api/approvals/${approval.id}`)).body.status).toBe('started');
    release();
    expect(await answered(rt, taskId)).toMatchObject({ status: 'completed' });
    expect(runs).toEqual(['ana@example.com']);
  });

  it('an edit runs with the checked arguments; arguments the tool refuses are a 400 naming the field', async () => {
    const { url, rt, runs, taskId, approval } = await mailing('all@example.com');
    const bad = await call<ErrorBody>(url, `/api/approvals/${approval.id}`, { json: { action: 'edit', arguments: { to: 'nobody' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', field: 'arguments.to' });
    const edited = await call<Approval>(url, `/api/approvals/${approval.id}`, { json: { action: 'edit', arguments: { to: 'team@example.com' } } });
    expect(edited.body).toMatchObject({ status: 'approved', decision: { action: 'edit', arguments: JSON.stringify({ to: 'team@example.com' }) } });
    await answered(rt, taskId);
    expect(runs).toEqual(['team@example.com']);
  });

  it('refuses a malformed decision naming the field, other arguments (409), an unknown id (404) and a malformed id (400)', async () => {
    const { url, runs, approval } = await mailing('bob@example.com', true);
    const decide = (id: string, json: unknown) => call<ErrorBody>(url, `/api/approvals/${id}`, { json });
    const noAction = await decide(approval.id, { action: 'maybe' });
    expect(noAction.status).toBe(400);
    expect(noAction.body.error).toMatchObject({ code: 'invalid_input', field: 'action' });
    const extra = await decide(approval.id, { action: 'approve', message: 'a reject has messages' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('invalid_input');
    const badDigest = await decide(approval.id, { action: 'approve', digest: 'abc' });
    expect(badDigest.body.error).toMatchObject({ code: 'invalid_input', field: 'digest' });
    const otherArguments = await decide(approval.id, { action: 'approve', digest: '0'.repeat(64) });
    expect(otherArguments.status).toBe(409);
    expect(otherArguments.body.error.code).toBe('conflict');
    const unknown = await decide('ap-000000000000000000000000', { action: 'approve' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_approval', field: 'id' });
    expect((await call<ErrorBody>(url, '/api/approvals/ap-000000000000000000000000')).status).toBe(404);
    const malformedId = await call<ErrorBody>(url, '/api/approvals/nope');
    expect(malformedId.status).toBe(400);
    expect(malformedId.body.error).toMatchObject({ code: 'invalid_input', field: 'id' });
    expect((await call<ErrorBody>(url, '/api/approvals?agent=root')).status).toBe(400);
    expect(runs).toEqual([]);
    expect((await call<{ approvals: Approval[] }>(url, '/api/approvals')).body.approvals).toHaveLength(1);
  });

  it('are described in the OpenAPI document', async () => {
    const { url } = await served({ memory: true });
    const document = await call<{ paths: Record<string, Record<string, { operationId: string }>> }>(url, '/openapi.json');
    expect(document.body.paths['/api/approvals']?.['get']?.operationId).toBe('listApprovals');
    expect(document.body.paths['/api/approvals/{id}']?.['get']?.operationId).toBe('getApproval');
    expect(document.body.paths['/api/approvals/{id}']?.['post']?.operationId).toBe('decideApproval');
  });
});

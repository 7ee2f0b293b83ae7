import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../src/server/index.js';
import { ScriptedModel } from '../../../src/testing.js';
import { type Served, serve } from '../../support/httpServerFixture.js';
import { mailTool } from '../../support/mailTool.js';

// The society as an MCP server on `troupe serve`'s /mcp, through the official SDK's client over
// real HTTP on loopback: one server for the file, its scripted model given the steps of each test.

const token = 'mcp-test-token-5f1c2a';
const secret = 'hunter2-mcp-secret-value';
const model = new ScriptedModel([]);
const mail = mailTool();
let served: Served;
let client: Client;

async function connect(url: string, bearer: string): Promise<Client> {
  const connected = new Client({ name: 'troupe-test', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return connected;
}

beforeAll(async () => {
  served = await serve({ memory: true, model, runtime: { tools: [mail.tool], secrets: [secret] }, server: { token } });
  client = await connect(served.url, token);
});
afterAll(async () => {
  await client.close();
  await served.close();
});

const call = async (name: string, args: Record<string, unknown>, onprogress?: (progress: { message?: string }) => void) =>
  (await client.callTool({ name, arguments: args }, undefined, onprogress === undefined ? {} : { onprogress })) as CallToolResult;
const errorText = (result: CallToolResult): string => (result.isError === true ? (result.content[0] as { text: string }).text : 'not an error');

interface Outcome {
  [key: string]: unknown;
  taskId: string;
  sessionId: string;
  status: string;
  answer?: string;
  approvals?: { id: string; tool: string; digest: string; arguments: string }[];
  next: string;
}

describe('troupe as an MCP server over Streamable HTTP (/mcp)', () => {
  it('lists its tools with input schemas and truthful annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual([
      'await_answer',
      'continue_session',
      'decide_approval',
      'list_agents',
      'list_approvals',
      'read_messages',
      'submit_requirement',
    ]);
    expect(byName.get('submit_requirement')?.inputSchema.required).toEqual(['text']);
    expect(byName.get('submit_requirement')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(byName.get('read_messages')?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('decide_approval')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('submits a requirement, reports progress, returns the answer, then continues the session and reads its messages', async () => {
    model.push({ text: 'The answer is 42.' }, { text: `Still 42, and not ${secret}.` });
    const progress: string[] = [];
    const first = await call('submit_requirement', { text: 'what is the answer?' }, (note) => progress.push(note.message ?? ''));
    const outcome = first.structuredContent as Outcome;
    expect(outcome).toMatchObject({ status: 'completed', answer: 'The answer is 42.', sessionId: outcome.taskId });
    expect(progress, JSON.stringify(progress)).toContain('root → user: execute (completed)');

    const second = (await call('continue_session', { sessionId: outcome.sessionId, text: 'sure?' })).structuredContent as Outcome;
    expect(second.status).toBe('completed');
    expect(second.answer).toBe('Still 42, and not [REDACTED].');
    expect(second.sessionId).toBe(outcome.sessionId);

    const read = (await call('read_messages', { taskId: outcome.sessionId })).structuredContent as { messages: { status: string; result: unknown }[] };
    const answers = read.messages.filter((message) => message.status === 'completed').map((message) => message.result);
    expect(answers).toEqual([{ text: 'The answer is 42.' }, { text: 'Still 42, and not [REDACTED].' }]);

    const agents = (await call('list_agents', {})).structuredContent as { agents: { id: string }[] };
    expect(agents.agents.map((agent) => agent.id)).toContain('root');
  });

  it('returns the calls waiting for approval, decides them through MCP, and then gives the answer', async () => {
    model.push({ toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] }, { text: 'mail sent' });
    const waiting = (await call('submit_requirement', { text: 'mail ana' })).structuredContent as Outcome;
    expect(waiting.status).toBe('input-required');
    const [approval] = waiting.approvals ?? [];
    expect(approval?.tool).toBe('send_email');
    const listed = (await call('list_approvals', {})).structuredContent as { approvals: { id: string }[] };
    expect(listed.approvals.map((each) => each.id)).toEqual([approval?.id]);

    const decided = (await call('decide_approval', { id: approval?.id, decision: { action: 'approve', digest: approval?.digest } })).structuredContent as {
      status: string;
      decision: { by: string };
    };
    expect(decided).toMatchObject({ status: 'approved', decision: { by: 'mcp' } });
    const again = await call('decide_approval', { id: approval?.id, decision: { action: 'reject' } });
    expect(errorText(again)).toMatch(/decided|no tool call waits/);

    const answer = (await call('await_answer', { taskId: waiting.taskId })).structuredContent as Outcome;
    expect(answer).toMatchObject({ status: 'completed', answer: 'mail sent' });
    expect(mail.runs).toEqual(['ana@example.com']);
  });

  it('answers bad arguments with error results naming the field, and an unknown tool with an error', async () => {
    expect(errorText(await call('submit_requirement', { text: '   ' }))).toMatch(/text.*must not be empty|must not be empty/s);
    expect(errorText(await call('submit_requirement', { text: 'hi', waitSeconds: 10_000 }))).toMatch(/must be ≤ 600.*at waitSeconds/);
    expect(errorText(await call('read_messages', { taskId: 'no such id!' }))).toMatch(/taskId/);
    expect(errorText(await call('decide_approval', { id: 'a1', decision: { action: 'maybe' } }))).toMatch(/decision/);
    expect(errorText(await call('no_such_tool', {}))).toMatch(/no_such_tool not found/);
    // The server is still up.
    expect((await client.listTools()).tools.length).toBe(7);
  });

  it('serves the organisation and memory views as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining(['troupe://org', 'troupe://agents/root/memory']));
    const org = await client.readResource({ uri: 'troupe://org' });
    expect(JSON.parse((org.contents[0] as { text: string }).text)).toMatchObject({ agents: { agents: [expect.objectContaining({ id: 'root' })] } });
    const memory = JSON.parse(((await client.readResource({ uri: 'troupe://agents/root/memory/l1' })).contents[0] as { text: string }).text) as {
      entries: unknown[];
    };
    expect(JSON.stringify(memory)).toContain('The answer is 42.');
    expect(JSON.stringify(memory)).not.toContain(secret);
    await expect(client.readResource({ uri: 'troupe://agents/root/memory/l9' })).rejects.toThrow(/tier must be l1, l2, l3 or l4/);
    await expect(client.readResource({ uri: 'troupe://agents/nobody/memory' })).rejects.toThrow(/nobody/);
  });

  it('refuses a client without the token, a request naming another host (DNS rebinding), and a GET (no standalone stream)', async () => {
    await expect(connect(served.url, 'wrong-token')).rejects.toThrow(/401|wrong bearer token/);
    const get = await fetch(`${served.url}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    // Stateless: no standalone event stream to open.
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(served.url);
      const sent = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: `evil.example:${port}`,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      sent.on('error', reject);
      sent.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(400);
  });

  it('beyond loopback, refuses a browser page of an origin neither its own nor in corsOrigins (403)', async () => {
    // An injected request arrives on no loopback socket: the rule for servers bound beyond it applies.
    const beyond = createHttpServer(served.rt, { token, corsOrigins: ['https://app.example.com'] });
    try {
      const post = (origin: string) =>
        beyond.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            host: 'troupe.example:3000',
            origin,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
        });
      const refused = await post('https://evil.example');
      expect([refused.statusCode, refused.json<{ error: { code: string } }>().error.code]).toEqual([403, 'origin_not_allowed']);
      expect((await post('https://app.example.com')).statusCode).toBe(200);
      expect((await post('http://troupe.example:3000')).statusCode).toBe(200);
    } finally {
      await beyond.close();
    }
  });
});

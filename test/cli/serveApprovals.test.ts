import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { stdioFixture, toolMessages } from '../support/mcpFixture.js';
import { ServeProcess } from '../support/serveProcess.js';

// The whole door, each part its own process: a real `troupe serve` whose model (the local
// OpenAI-compatible server) calls an untrusted MCP server's tool, which waits for approval; the
// service logs how to decide it, and `troupe approvals` and `troupe approve` decide it over HTTP.

const dir = mkdtempSync(join(tmpdir(), 'troupe-serve-approvals-'));
const mcpConfig = join(dir, 'mcp.json');
writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { calc: { ...stdioFixture('stdioServer'), requireApproval: true } } }));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('troupe serve with a call waiting for approval', () => {
  it('logs how to decide it; troupe approvals lists it and troupe approve runs it', async () => {
    const model: OpenAICompatibleServer = await startOpenAICompatibleServer();
    cleanups.push(() => model.close());
    model.script({ toolCalls: [{ name: 'calc__add', arguments: { a: 2, b: 3 } }] }, { text: 'done' });
    const serve = new ServeProcess(['--port', '0', '--memory', '--no-console', '--mcp', mcpConfig], {
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
    });
    cleanups.push(async () => {
      serve.signal('SIGKILL');
      await serve.done;
    });
    const url = await serve.url();
    const events = await EventStreamClient.open(url, '/api/events');
    cleanups.push(() => events.close());
    await fetch(`${url}/api/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'add 2 and 3' }) });

    const waiting = await serve.until(() => serve.logs.find((line) => line.msg.startsWith('a tool call waits for approval')), 'the approval logged');
    const id = String(waiting['approvalId']);
    expect(waiting).toMatchObject({ agentId: 'root', tool: 'calc__add', msg: `a tool call waits for approval: troupe approve ${id}, or troupe reject ${id}` });
    const listed = await runCli(['approvals', '--url', url]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${id}  root asks to run calc__add`);
    expect(listed.stdout).toContain('why: an MCP tool not known to be read-only');

    const approved = await runCli(['approve', id, '--url', url]);
    expect(approved.stdout).toBe(`approved calc__add call ${id} of root\n`);
    await events.until((stream) => stream.tasks.some((task) => task.to === 'user' && task.status === 'completed'));
    expect(toolMessages(model.chatRequests[1]?.messages).map((message) => message.content)).toEqual(['5']);
    expect(events.events.filter((event) => event.event === 'approval').map((event) => (JSON.parse(event.data) as { type: string }).type)).toEqual([
      'waiting',
      'decided',
    ]);
  });
});

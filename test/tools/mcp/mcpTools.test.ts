import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime/runtime.js';
import { toolAnnotations } from '../../../src/tools/index.js';
import { callStep, errorOf, stdioFixture, toolMessages } from '../../support/mcpFixture.js';
import { startHttpMcpServer } from '../../support/mcpTestServer.js';
import { quietRuntime, recordBus } from '../../support/runtimeFixture.js';

// A real MCP server (the SDK's, over stdio in a child process and over Streamable HTTP on
// loopback) whose tools an agent calls through the scripted model.

const running: Runtime[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const rt of running.splice(0)) await rt.shutdown();
  for (const close of closers.splice(0)) await close();
});

async function runtimeWith(options: Parameters<typeof quietRuntime>[0]): ReturnType<typeof quietRuntime> {
  const made = await quietRuntime(options);
  running.push(made.rt);
  return made;
}

describe('MCP tools', () => {
  it('stdio: the agent calls <server>__<tool> and reads its answer; the model saw the server’s JSON Schema', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: stdioFixture('stdioServer') },
      steps: [callStep('calc__add', { a: 2, b: 3 }), { text: 'done' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 20_000 });
    expect(answer.status).toBe('completed');
    expect(toolMessages(model.requests[1]?.messages)).toEqual([{ name: 'calc__add', content: '5' }]);
    const seen = model.requests[0]?.tools.find((tool) => tool.name === 'calc__add');
    expect(seen).toMatchObject({ description: 'Add two numbers', parameters: { type: 'object', required: ['a', 'b'] } });
    expect(rt.mcpServers()).toEqual([{ name: 'calc', state: 'up', error: '', tools: 7 }]);
  });

  it('Streamable HTTP on loopback: the same', async () => {
    const server = await startHttpMcpServer();
    closers.push(() => server.close());
    const { rt, model } = await runtimeWith({
      mcpServers: { web: { url: server.url, requireApproval: false } },
      steps: [callStep('web__add', { a: 40, b: 2 }), { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 20_000 });
    expect(toolMessages(model.requests[1]?.messages)).toEqual([{ name: 'web__add', content: '42' }]);
  });

  it('arguments are checked against the JSON Schema before the call; the model reads what is wrong', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: stdioFixture('stdioServer') },
      steps: [callStep('calc__add', { a: 'two' }), { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 20_000 });
    const [result] = toolMessages(model.requests[1]?.messages);
    expect(errorOf(result?.content).code).toBe('invalid_input');
    expect(errorOf(result?.content).error).toMatch(/^invalid arguments for calc__add: /);
  });

  it('an untrusted server’s annotations are hints only; a trusted server’s are relied on', async () => {
    const { rt } = await runtimeWith({
      mcpServers: { loose: stdioFixture('stdioServer'), sure: { ...stdioFixture('stdioServer'), trusted: true } },
    });
    const loose = rt.tools.get('loose__add');
    const sure = rt.tools.get('sure__add');
    expect(loose === undefined ? undefined : toolAnnotations(loose)).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
    expect(loose?.hints).toEqual({ readOnly: true, openWorld: false });
    expect(sure === undefined ? undefined : toolAnnotations(sure)).toEqual({ readOnly: true, destructive: false, idempotent: false, openWorld: false });
    expect(sure?.source).toBe('mcp:sure');
  });

  it("the role's tool policy applies to MCP tools", async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: stdioFixture('stdioServer') },
      root: { tools: { deny: ['calc__add'] } },
      steps: [callStep('calc__add', { a: 1, b: 1 }), { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 20_000 });
    expect(model.requests[0]?.tools.some((tool) => tool.name === 'calc__add')).toBe(false);
    expect(errorOf(toolMessages(model.requests[1]?.messages)[0]?.content)).toMatchObject({ code: 'unknown_tool' });
  });

  it('a result larger than maxResultBytes is an error result naming the limit', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: { ...stdioFixture('stdioServer'), maxResultBytes: 1_000 } },
      steps: [callStep('calc__big', { bytes: 5_000 }), callStep('calc__big', { bytes: 900 }), { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('big'), { timeoutMs: 20_000 });
    expect(toolMessages(model.requests[1]?.messages)[0]?.content).toMatch(
      /big on MCP server \\"calc\\" answered 5000 bytes, more than the 1000 a result may have \(maxResultBytes\)/,
    );
    expect(toolMessages(model.requests[2]?.messages)[1]?.content).toBe('x'.repeat(900));
  });

  it('a call that outlives callTimeoutMs is an error result the model reads, and the agent carries on', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: { ...stdioFixture('stdioServer'), callTimeoutMs: 300 } },
      steps: [callStep('calc__hang'), callStep('calc__add', { a: 1, b: 2 }), { text: 'done' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('hang'), { timeoutMs: 20_000 });
    expect(answer.status).toBe('completed');
    const [hung, added] = toolMessages(model.requests[2]?.messages);
    expect(hung?.content).toMatch(/timed out after 300 ms/);
    expect(added?.content).toBe('3');
  });

  it("the server's env secrets reach neither the logs nor the bus", async () => {
    const secret = 'mcp-secret-0f9a8b7c6d';
    const { rt, model, logger } = await runtimeWith({
      logLevel: 'debug',
      mcpServers: { calc: stdioFixture('stdioServer', { SECRET_TOKEN: secret }) },
      steps: [callStep('calc__whoami'), { text: 'done' }],
    });
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('who'), { timeoutMs: 20_000 });
    // The server did get it and said it, on its stderr and in its answer.
    expect(toolMessages(model.requests[1]?.messages)[0]?.content).toBe('token [REDACTED]');
    await expect.poll(() => logger.entries.some((entry) => entry.message === 'MCP server stderr')).toBe(true);
    expect(JSON.stringify(logger.entries)).not.toContain(secret);
    expect(JSON.stringify(seen)).not.toContain(secret);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('tools/list_changed refreshes the list', async () => {
    const { rt } = await runtimeWith({
      mcpServers: { calc: stdioFixture('stdioServer') },
      steps: [callStep('calc__grow'), { text: 'done' }],
    });
    expect(rt.tools.get('calc__extra')).toBeUndefined();
    await rt.waitForAnswer(await rt.submit('grow'), { timeoutMs: 20_000 });
    await expect.poll(() => rt.tools.get('calc__extra')?.description, { timeout: 10_000 }).toBe('Added later');
  });
});

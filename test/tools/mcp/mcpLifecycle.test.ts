import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime/runtime.js';
import { readMcpConfigFile } from '../../../src/tools/index.js';
import { callStep, errorOf, stdioFixture, toolMessages } from '../../support/mcpFixture.js';
import { quietRuntime } from '../../support/runtimeFixture.js';

// A server that dies, one that never answers, restarts with a maximum, shutdown, config files.

const running: Runtime[] = [];
afterEach(async () => {
  for (const rt of running.splice(0)) await rt.shutdown();
});

async function runtimeWith(options: Parameters<typeof quietRuntime>[0]): ReturnType<typeof quietRuntime> {
  const made = await quietRuntime(options);
  running.push(made.rt);
  return made;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP servers that fail', () => {
  it('a server killed mid-session: the call in flight and the next are error results, and the agent carries on to its answer', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: { ...stdioFixture('stdioServer'), backoffMs: 600_000, maxBackoffMs: 600_000 } },
      steps: [callStep('calc__add', { a: 1, b: 1 }), callStep('calc__die'), callStep('calc__add', { a: 2, b: 2 }), { text: 'carried on' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('work'), { timeoutMs: 20_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'carried on' } });
    const [first, died, next] = toolMessages(model.requests[3]?.messages);
    expect(first?.content).toBe('2');
    expect(errorOf(died?.content).code).toBe('tool_error');
    expect(errorOf(died?.content).error).toMatch(/^die on MCP server "calc" failed: .*closed/i);
    expect(errorOf(next?.content).error).toMatch(/^add: MCP server "calc" is down .*being restarted/);
    expect(rt.mcpServers()[0]?.state).toBe('down');
  });

  it('a dead stdio server is restarted after its backoff, and its tools work again', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: { ...stdioFixture('stdioServer'), backoffMs: 20 } },
      steps: [callStep('calc__die'), { text: 'first' }, callStep('calc__add', { a: 5, b: 5 }), { text: 'second' }],
    });
    await rt.waitForAnswer(await rt.submit('die'), { timeoutMs: 20_000 });
    await expect.poll(() => rt.mcpServers()[0]?.state, { timeout: 15_000 }).toBe('up');
    await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 20_000 });
    expect(toolMessages(model.requests[3]?.messages).at(-1)?.content).toBe('10');
  });

  it('a server that never stays up is given up after maxRestarts', async () => {
    const { rt } = await runtimeWith({
      mcpServers: { broken: { command: process.execPath, args: ['-e', 'process.exit(1)'], maxRestarts: 2, backoffMs: 10, connectTimeoutMs: 5_000 } },
    });
    await expect.poll(() => rt.mcpServers()[0]?.state, { timeout: 15_000 }).toBe('failed');
    expect(rt.mcpServers()[0]?.error).not.toBe('');
    expect(rt.tools.names().some((name) => name.startsWith('broken__'))).toBe(false);
  });

  it('a server that never answers initialize times out (connectTimeoutMs) and the runtime starts without it', async () => {
    const { rt } = await runtimeWith({ mcpServers: { mute: { ...stdioFixture('silentServer'), connectTimeoutMs: 300, maxRestarts: 0 } } });
    expect(rt.mcpServers()).toEqual([
      { name: 'mute', state: 'failed', error: 'MCP server "mute" did not answer initialize within 300 ms (connectTimeoutMs)', tools: 0 },
    ]);
    expect(rt.state).toBe('running');
  });

  it('a down server’s tools answer at once that it is down, never hang', async () => {
    const { rt, model } = await runtimeWith({
      mcpServers: { calc: { ...stdioFixture('stdioServer'), maxRestarts: 0 } },
      steps: [callStep('calc__die'), callStep('calc__add', { a: 1, b: 1 }), { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('x'), { timeoutMs: 20_000 });
    expect(errorOf(toolMessages(model.requests[2]?.messages)[1]?.content).error).toMatch(
      /^add: MCP server "calc" is down \(.*\); it was given up after 0 restarts \(maxRestarts\)$/,
    );
  });

  it('shutdown stops every stdio server process: no orphan is left', async () => {
    const { rt, model } = await quietRuntime({
      mcpServers: { a: stdioFixture('stdioServer'), b: stdioFixture('stdioServer') },
      steps: [
        {
          toolCalls: [
            { name: 'a__pid', arguments: {} },
            { name: 'b__pid', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    });
    await rt.waitForAnswer(await rt.submit('pids'), { timeoutMs: 20_000 });
    const pids = toolMessages(model.requests[1]?.messages).map((message) => Number(message.content));
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    await rt.shutdown();
    expect(pids.filter(alive)).toEqual([]);
  });
});

describe('MCP configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-mcp-config-'));
  const file = (name: string, content: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('reads the mcpServers file other MCP clients keep, filling in the limits', async () => {
    const path = file('ok.json', {
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 't' } },
        web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
      },
    });
    const servers = await readMcpConfigFile(path);
    expect(servers['fs']).toMatchObject({ command: 'npx', args: ['-y', 'server'], env: { TOKEN: 't' }, callTimeoutMs: 60_000, trusted: false });
    expect(servers['web']).toMatchObject({ url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' }, connectTimeoutMs: 10_000 });
  });

  it('a bad file is refused naming the file and the field', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['missing.json', undefined, /^MCP config .*missing\.json: cannot read it/],
      ['notjson.json', '{ nope', /^MCP config .*notjson\.json: not JSON/],
      ['noservers.json', { servers: {} }, /^MCP config .*noservers\.json: mcpServers: /],
      ['neither.json', { mcpServers: { x: { cmd: 'a' } } }, /^MCP config .*neither\.json: mcpServers\.x: needs "command" \(a stdio server\) or "url"/],
      ['badenv.json', { mcpServers: { x: { command: 'a', env: { K: 1 } } } }, /^MCP config .*badenv\.json: mcpServers\.x\.env\.K: /],
      ['badtimeout.json', { mcpServers: { x: { url: 'http://h/mcp', callTimeoutMs: 0 } } }, /^MCP config .*badtimeout\.json: mcpServers\.x\.callTimeoutMs: /],
      ['unknown.json', { mcpServers: { x: { url: 'http://h/mcp', colour: 'red' } } }, /^MCP config .*unknown\.json: mcpServers\.x: .*colour/],
    ];
    for (const [name, content, message] of cases) {
      const path = content === undefined ? join(dir, name) : file(name, content);
      await expect(readMcpConfigFile(path), name).rejects.toThrow(message);
    }
  });

  it('createRuntime refuses bad mcpServers before starting anything, naming the field', async () => {
    await expect(quietRuntime({ mcpServers: { x: { command: '' } } })).rejects.toThrow(/^mcpServers\.x\.command: /);
  });
});

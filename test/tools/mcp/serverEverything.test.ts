import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime/runtime.js';
import { toolAnnotations } from '../../../src/tools/index.js';
import { freePort } from '../../support/freePort.js';
import { callStep, toolMessages } from '../../support/mcpFixture.js';
import { quietRuntime } from '../../support/runtimeFixture.js';

// The reference server of the MCP project, a third-party server troupe did not write, offline
// from node_modules: over stdio, and over Streamable HTTP on loopback.

const everything = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

const running: Runtime[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const rt of running.splice(0)) await rt.shutdown();
  for (const child of children.splice(0)) child.kill();
});

/** server-everything over Streamable HTTP on a free loopback port, once it says it listens. */
async function startHttpEverything(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited ${String(code)}: ${said}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

describe('server-everything', () => {
  it('stdio: the agent echoes and sums through it; its annotations are relied on once it is trusted; its env stays secret', async () => {
    const secret = 'everything-secret-5d4c3b2a';
    const { rt, model } = await quietRuntime({
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], env: { API_TOKEN: secret }, trusted: true, requireApproval: false } },
      steps: [
        {
          toolCalls: [
            { name: 'everything__echo', arguments: { message: 'hello' } },
            { name: 'everything__get-sum', arguments: { a: 2, b: 40 } },
          ],
        },
        callStep('everything__get-env'),
        { text: 'done' },
      ],
    });
    running.push(rt);
    const answer = await rt.waitForAnswer(await rt.submit('use everything'), { timeoutMs: 30_000 });
    expect(answer.status).toBe('completed');
    const [echo, sum, env] = toolMessages(model.requests[2]?.messages);
    expect(echo?.content).toBe('Echo: hello');
    expect(sum?.content).toMatch(/42/);
    expect(env?.content).toContain('API_TOKEN');
    expect(env?.content).not.toContain(secret);
    const tool = rt.tools.get('everything__echo');
    expect(tool === undefined ? undefined : toolAnnotations(tool)).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
  });

  it("stores an image a tool answers with as an artifact of the Task; the model reads a line naming it, never the image's bytes", async () => {
    const { rt, model } = await quietRuntime({
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], requireApproval: false } },
      steps: [callStep('everything__get-tiny-image'), { text: 'done' }],
    });
    running.push(rt);
    const taskId = await rt.submit('show me an image');
    expect((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status).toBe('completed');
    const [image] = rt.artifacts(taskId);
    expect(image).toMatchObject({ name: 'get-tiny-image-2.png', mediaType: 'image/png', taskId });
    const stored = rt.artifact(image?.id ?? '');
    const bytes = stored?.content;
    expect(bytes instanceof Uint8Array ? [...bytes.slice(0, 4)] : bytes).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const [result] = toolMessages(model.requests[1]?.messages);
    expect(result?.content).toContain(`stored as "get-tiny-image-2.png"`);
    expect(result?.content.length).toBeLessThan(2_000);
  });

  it('Streamable HTTP on loopback: the same echo', async () => {
    const url = await startHttpEverything();
    const { rt, model } = await quietRuntime({
      mcpServers: { everything: { url, requireApproval: false } },
      steps: [callStep('everything__echo', { message: 'over http' }), { text: 'done' }],
    });
    running.push(rt);
    await rt.waitForAnswer(await rt.submit('echo'), { timeoutMs: 30_000 });
    expect(toolMessages(model.requests[1]?.messages)).toEqual([{ name: 'everything__echo', content: 'Echo: over http' }]);
  });
});

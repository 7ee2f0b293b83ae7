import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';
import { stdioFixture, toolMessages } from '../support/mcpFixture.js';

// `troupe run` when a tool call needs a person's approval and no terminal is there to ask on:
// the real CLI in a child process (stdin not a terminal), the local OpenAI-compatible server over
// loopback scripting the model, and the test MCP server's `add`, an untrusted server's tool (so
// it needs approval by MCP's rule).

const dir = mkdtempSync(join(tmpdir(), 'troupe-run-approvals-'));
const mcpConfig = join(dir, 'mcp.json');
writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { calc: { ...stdioFixture('stdioServer'), requireApproval: true } } }));

let model: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** `troupe run` whose model calls calc__add(2, 3) once, then answers; the tool message the model read after. */
async function runAdding(...flags: string[]) {
  model = await startOpenAICompatibleServer();
  model.script({ toolCalls: [{ name: 'calc__add', arguments: { a: 2, b: 3 } }] }, { text: 'done' });
  const result = await runCli(['run', 'add 2 and 3', '--no-status', '--memory', '--mcp', mcpConfig, ...flags], {
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'sk-test',
  });
  const [added] = toolMessages(model.chatRequests[1]?.messages);
  return { ...result, added };
}

describe('troupe run, a call needing approval', () => {
  it('with no terminal, is rejected, never run, and the model and stderr are told to use --approve-all', async () => {
    const { code, stderr, added } = await runAdding();
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /^troupe: rejected calc__add call ap-[0-9a-f]{24} of root: it needs a person's approval and there is no terminal to ask on \(--approve-all approves every such call\)$/m,
    );
    expect(JSON.parse(added?.content ?? '{}')).toMatchObject({ code: 'approval_rejected' });
    expect(added?.content).toContain('troupe run has no terminal to ask on, and rejects such calls unless run with --approve-all');
    expect(added?.content).not.toMatch(/\b5\b/);
  });

  it('with --approve-all, is approved by the flag and runs', async () => {
    const { code, stderr, added } = await runAdding('--approve-all');
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/^troupe: approved calc__add call ap-[0-9a-f]{24} of root \(--approve-all\)$/m);
    expect(added?.content).toBe('5');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { projectRoot, troupeArgs } from '../support/cliProcess.js';

// `troupe mcp` as a desktop assistant runs it: a child process spoken to over stdio by the SDK's
// client, with a runtime of its own on a data dir and the offline model (no OPENAI_* set).

describe('troupe mcp (stdio)', () => {
  it('serves a requirement and its answer to an MCP client, and stops when the client closes its stdin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-mcp-stdio-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: troupeArgs(['mcp', '--data-dir', dataDir]),
      cwd: projectRoot,
      env: { PATH: process.env['PATH'] ?? '', TROUPE_LOG_LEVEL: 'info' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'troupe-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('troupe');
      const submitted = (await client.callTool({ name: 'submit_requirement', arguments: { text: 'write a haiku about rain' } })) as CallToolResult;
      const outcome = submitted.structuredContent as { status: string; answer: string; sessionId: string };
      expect(outcome.status, stderr).toBe('completed');
      expect(outcome.answer.length).toBeGreaterThan(0);
      const read = (await client.callTool({ name: 'read_messages', arguments: { taskId: outcome.sessionId } })) as CallToolResult;
      expect((read.structuredContent as { source: string; total: number }).source).toBe('store');
      const bad = (await client.callTool({ name: 'continue_session', arguments: { text: 'more' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('sessionId');
    } finally {
      // Closes the child's stdin, then waits for it to exit (the SDK signals it only if it lingers).
      await client.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // It stopped because its input ended, and shut its runtime down in order.
    expect(stderr).toContain('input ended');
    expect(stderr).not.toContain('"level":50');
  });
});

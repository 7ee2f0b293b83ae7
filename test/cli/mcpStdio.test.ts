import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { projectRoot, troupeArgs } from '../support/cliProcess.js';
import { OtlpReceiver } from '../support/otlpReceiver.js';

const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpan = '00f067aa0ba902b7';

// `troupe mcp` as a desktop assistant runs it: a child process spoken to over stdio by the SDK's
// client, with a runtime of its own on a data dir and the offline model (no OPENAI_* set).

describe('troupe mcp (stdio)', () => {
  it("serves a requirement and its answer to an MCP client, tracing it under the caller's span (--otel), and stops when the client closes its stdin", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-mcp-stdio-'));
    const receiver = await OtlpReceiver.start();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: troupeArgs(['mcp', '--data-dir', dataDir, '--otel']),
      cwd: projectRoot,
      env: { PATH: process.env['PATH'] ?? '', TROUPE_LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'troupe-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('troupe');
      // The caller's trace context, in params._meta as the MCP semantic conventions carry it.
      const _meta = { traceparent: `00-${callerTrace}-${callerSpan}-01` };
      const submitted = (await client.callTool({ name: 'submit_requirement', arguments: { text: 'write a haiku about rain' }, _meta })) as CallToolResult;
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
      await receiver.close();
    }
    // It stopped because its input ended, and shut its runtime down in order.
    expect(stderr).toContain('input ended');
    expect(stderr).not.toContain('"level":50');
    // Its spans were sent before it exited: the server span continues the caller's, the society's work hangs under it.
    const server = receiver.spans.find((span) => span.name === 'tools/call submit_requirement');
    expect(server).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan, kind: 2, service: 'troupe mcp' });
    expect(server?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe' });
    expect(receiver.spans.find((span) => span.name === 'invoke_agent root')?.parentSpanId).toBe(server?.spanId);
  });
});

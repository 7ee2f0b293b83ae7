import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../src/testing.js';
import { serve } from '../../support/httpServerFixture.js';
import { until } from '../../support/runtimeFixture.js';

// The bound on MCP calls waiting for answers (maxMcpWaits), and what a waiting call gets when the
// server stops: its task id, at once. The model never answers, so only the bound and the stop end a wait.

interface Outcome {
  status: string;
  taskId: string;
  next: string;
}

describe('MCP calls waiting for answers on /mcp', () => {
  it('past maxMcpWaits a call returns its task id at once; a stopping server ends the waits', async () => {
    const model = new ScriptedModel([{ hang: true }, { hang: true }]);
    const served = await serve({ memory: true, model, server: { maxMcpWaits: 1 } });
    const client = new Client({ name: 'troupe-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
    const first = client.callTool({ name: 'submit_requirement', arguments: { text: 'first', waitSeconds: 600 } }) as Promise<CallToolResult>;
    // The first call has its Task accepted (and so holds the one place) once the model is asked.
    await until(() => model.requests.length === 1, 'the first Task reaching the model');
    const second = (await client.callTool({ name: 'submit_requirement', arguments: { text: 'second', waitSeconds: 600 } })) as CallToolResult;
    expect(second.structuredContent as unknown as Outcome).toMatchObject({ status: 'working' });
    expect((second.structuredContent as unknown as Outcome).next).toContain('all 1 places for calls waiting for answers are taken (maxMcpWaits)');

    const closed = served.close();
    const stopped = (await first).structuredContent as unknown as Outcome;
    expect(stopped.status).toBe('working');
    expect(stopped.next).toContain('the server is stopping');
    await closed;
    await client.close();
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { roundTripAgainstSubmit } from './protocolRoundTrip.js';
import type { Row } from './report.js';

/**
 * troupe as an MCP server: `submit_requirement` calls through `POST /mcp` (the official SDK's
 * client over Streamable HTTP, waiting for the answer) against the same work through
 * `POST /api/submit` and the answer awaited, on one `troupe serve` in the same run: what the MCP
 * layer (a server and a transport per request, JSON-RPC, the tool's schema) adds.
 */
export async function mcpServerRoundTrip(): Promise<Row[]> {
  const row = {
    benchmark: 'MCP submit_requirement round trip (per request)',
    what: "the SDK's client's tools/call of submit_requirement on POST /mcp (stateless: a server and a transport per request), waiting for the answer",
  };
  const measured = await roundTripAgainstSubmit(row, async (url) => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    return {
      request: async () => {
        const result = await client.callTool({ name: 'submit_requirement', arguments: { text: 'hello', waitSeconds: 60 } });
        const status = (result.structuredContent as { status?: string } | undefined)?.status;
        if (result.isError === true || status !== 'completed') throw new Error(`the MCP bench call did not complete: ${JSON.stringify(result)}`);
      },
      close: () => client.close(),
    };
  });
  return [measured];
}

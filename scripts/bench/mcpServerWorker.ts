import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

// The MCP server the MCP bench calls: one read-only tool, `add`. `stdio` (the default): served
// on stdin/stdout, as an MCP client starts it. `http`: Streamable HTTP on a free loopback port,
// whose URL is the first line printed; it serves until its stdin closes.

function server(): McpServer {
  const mcp = new McpServer({ name: 'bench', version: '1.0.0' });
  mcp.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
    ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }),
  );
  return mcp;
}

if (process.argv[2] === 'http') {
  // Stateful: one session (server and transport) per client, as a long-lived HTTP server keeps them.
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known !== undefined) {
      void known.handleRequest(req, res);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (session) => void sessions.set(session, transport),
    });
    void server()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`));
  process.stdin.resume();
  process.stdin.on('end', () => {
    http.closeAllConnections();
    http.close();
  });
} else {
  await server().connect(new StdioServerTransport());
}

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const text = (value: string): { content: { type: 'text'; text: string }[] } => ({ content: [{ type: 'text', text: value }] });

/**
 * A small MCP server for the tests, over the SDK's own server: `add` (read-only), `whoami`
 * (answers with its SECRET_TOKEN, and says it on stderr), `big` (a result of `bytes` bytes),
 * `hang` (never answers), `die` (its process exits mid-call), `grow` (adds the tool `extra`,
 * which sends tools/list_changed), `pid`.
 */
export function testMcpServer(): McpServer {
  const server = new McpServer({ name: 'troupe-test-server', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true, openWorldHint: false } },
    ({ a, b }) => text(String(a + b)),
  );
  server.registerTool('whoami', { description: 'Say the token it was given' }, () => {
    process.stderr.write(`token is ${process.env['SECRET_TOKEN'] ?? 'none'}\n`);
    return text(`token ${process.env['SECRET_TOKEN'] ?? 'none'}`);
  });
  server.registerTool('big', { description: 'A long answer', inputSchema: { bytes: z.number().int() } }, ({ bytes }) => text('x'.repeat(bytes)));
  server.registerTool('hang', { description: 'Never answers' }, () => new Promise<never>(() => undefined));
  server.registerTool('die', { description: 'Exits the server process' }, () => process.exit(3));
  server.registerTool('pid', { description: 'Its process id' }, () => text(String(process.pid)));
  server.registerTool('grow', { description: 'Adds a tool' }, () => {
    server.registerTool('extra', { description: 'Added later' }, () => text('extra'));
    return text('grown');
  });
  return server;
}

/** The test server over Streamable HTTP on loopback (stateless: a server per request), until `close`. */
export async function startHttpMcpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    const server = testMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRuntime } from 'troupe';
import { createHttpServer } from 'troupe/server';
import { ScriptedModel } from 'troupe/testing';

// A society whose root answers from a script, served with its /mcp endpoint.
const rt = await createRuntime({ model: new ScriptedModel([{ text: 'Rain on the roof: a haiku in three lines.' }]) });
const server = createHttpServer(rt, { token: 'a-long-enough-token' });
const url = await server.listen({ port: 0, host: '127.0.0.1' });

// Any MCP client: here the official SDK's, over Streamable HTTP with the bearer token.
const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: 'Bearer a-long-enough-token' } } }));
console.log((await client.listTools()).tools.map((tool) => tool.name));

// Waits (up to waitSeconds) for the answer; progress notes arrive while the society works.
const result = await client.callTool({ name: 'submit_requirement', arguments: { text: 'write a haiku about rain', waitSeconds: 30 } }, undefined, {
  onprogress: (progress) => console.log('progress:', progress.message),
});
console.log(result.structuredContent);

await client.close();
server.drain();
await rt.shutdown();
await server.close();

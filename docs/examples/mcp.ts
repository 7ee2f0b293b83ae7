import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { createRuntime, defineTool, toolAnnotations } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// A tool that says what it does to the world: read-only, so neither destructive nor a risk to run twice.
const clock = defineTool({
  name: 'clock',
  description: 'The time now, as an ISO string',
  parameters: z.object({}),
  annotations: { readOnly: true, idempotent: false, openWorld: false },
  execute: () => Promise.resolve({ content: new Date().toISOString() }),
});
console.log('clock', toolAnnotations(clock));

// The MCP project's reference server, run over stdio from node_modules (offline).
const everything = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

// The scripted model calls the server's echo tool, then answers with what it read.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'everything__echo', arguments: { message: 'hello from troupe' } }] },
  (request) => ({ text: `the server said: ${request.messages.at(-1)?.content ?? ''}` }),
]);

const rt = await createRuntime({
  model,
  tools: [clock],
  mcpServers: {
    everything: { command: process.execPath, args: [everything, 'stdio'], trusted: true, callTimeoutMs: 10_000 },
  },
});
console.log(rt.mcpServers());
const echo = rt.tools.get('everything__echo');
if (echo !== undefined) console.log('everything__echo', echo.source, toolAnnotations(echo));
const answer = await rt.waitForAnswer(await rt.submit('say hello through the MCP server'), { timeoutMs: 30_000 });
console.log(answer.result);
await rt.shutdown();

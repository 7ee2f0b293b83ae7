import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createRuntime } from 'troupe';
import { a2aAgentTool } from 'troupe/nodes';
import { createHttpServer } from 'troupe/server';
import { ScriptedModel } from 'troupe/testing';

// A troupe service speaking A2A (a scripted model answers, offline; a real one thinks).
const geography = await createRuntime({ model: new ScriptedModel([{ text: 'Paris.' }, { text: 'Lyon, after Paris.' }]) });
const server = createHttpServer(geography);
const url = await server.listen({ port: 0, host: '127.0.0.1' });

// The official SDK's client reads its agent card, then sends a message: the task comes back completed.
const client = await new ClientFactory().createFromUrl(url);
const card = await client.getAgentCard();
console.log(
  card.name,
  card.capabilities?.streaming,
  card.supportedInterfaces.map((face) => face.protocolVersion),
);
const message = {
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text' as const, value: 'What is the capital of France?' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
};
const reply = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
if ('status' in reply) console.log(reply.status?.message?.parts[0]?.content?.value);

// Another troupe gives work to it through a tool: the remote's answer is the tool's result.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'a2a_geography', arguments: { task: 'What is the second city of France?' } }] },
  (request) => ({ text: `geography says: ${request.messages.at(-1)?.content ?? ''}` }),
]);
const rt = await createRuntime({ model, tools: [a2aAgentTool({ name: 'geography', url, timeoutMs: 30_000, retries: 2 })] });
const answer = await rt.waitForAnswer(await rt.submit('Ask geography for the second city of France'), { timeoutMs: 30_000 });
console.log(answer.result);

await rt.shutdown();
await server.close();
await geography.shutdown();

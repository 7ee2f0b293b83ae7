import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createRuntime } from 'troupe';
import { a2aAgentTool, a2aRemoteRole } from 'troupe/nodes';
import { createHttpServer } from 'troupe/server';
import { ScriptedModel } from 'troupe/testing';

// A troupe service speaking A2A (a scripted model answers, offline; a real one thinks).
const geography = await createRuntime({
  model: new ScriptedModel([{ text: 'Paris.' }, { text: 'Lyon, after Paris.' }, { text: 'Marseille, third.' }]),
});
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

// Or a role served by the remote: delegate_task names the role, the work goes over A2A, and canceling the local Task cancels the remote one.
const delegating = new ScriptedModel([
  { toolCalls: [{ name: 'delegate_task', arguments: { role: 'geography', task: 'And the third city?' } }] },
  (request) => ({ text: `the geography role says: ${request.messages.at(-1)?.content ?? ''}` }),
]);
const society = await createRuntime({ model: delegating, remoteRoles: [a2aRemoteRole({ role: 'geography', url, timeoutMs: 30_000 })] });
const third = await society.waitForAnswer(await society.submit('Ask the geography role for the third city'), { timeoutMs: 30_000 });
console.log(third.result);

await society.shutdown();
await rt.shutdown();
await server.close();
await geography.shutdown();

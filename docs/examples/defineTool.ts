import { createRuntime, defineTool } from 'troupe';
import { ScriptedModel } from 'troupe/testing';
import { z } from 'zod';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  timeoutMs: 5_000, // the runtime's toolTimeoutMs when absent
  async execute({ a, b }) {
    return { content: String(a + b), metadata: { sum: a + b } };
  },
});

// A scripted model calls the tool once, with bad arguments once, then answers; a real model chooses.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
  { toolCalls: [{ name: 'add', arguments: { a: 'two' } }] }, // comes back to the model as an error result
  { text: '2 + 3 = 5' },
]);
const rt = await createRuntime({ model, tools: [add] });
const taskId = await rt.submit('what is 2 + 3?');
console.log((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).result);

// What the model read after each call: the tool's content, then the refusal naming the bad argument.
for (const message of model.requests.at(-1)?.messages ?? []) if (message.role === 'tool') console.log(message.content);
await rt.shutdown();

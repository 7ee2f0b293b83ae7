import { z } from 'zod';
import { type Interceptor, createRuntime, defineTool, taskText } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  parameters: z.object({ order: z.string(), amount: z.number() }),
  execute: ({ order, amount }) => Promise.resolve({ content: `refunded ${amount} on ${order}` }),
});

// Card numbers never reach the model: what it reads is changed before each call.
const redactCards: Interceptor = {
  name: 'redact-cards',
  beforeModelCall: (_, request) => ({
    change: { messages: request.messages.map((message) => ({ ...message, content: message.content.replace(/\b\d{4}(-\d{4}){3}\b/g, '[card]') })) },
  }),
};

// Refunds over 100 do not run: the model reads why and can say so.
const refundLimit: Interceptor = {
  name: 'refund-limit',
  beforeToolCall: (context, call) => {
    if (context.call.name !== 'refund') return undefined;
    const { amount } = JSON.parse(call.arguments) as { amount: number };
    return amount > 100 ? { stop: `refunds over 100 need a person (asked for ${amount})` } : undefined;
  },
};

const model = new ScriptedModel([
  { toolCalls: [{ name: 'refund', arguments: { order: 'A-17', amount: 250 } }] },
  { text: 'I cannot refund 250 myself; a colleague will follow up.' },
]);
const rt = await createRuntime({ model, tools: [refund], interceptors: [redactCards, refundLimit] });

const answer = await rt.waitForAnswer(await rt.submit('Refund 250 on A-17, card 4111-1111-1111-1111'), { timeoutMs: 10_000 });
console.log(taskText(answer));
console.log(model.requests[0]?.messages.at(-1)?.content); // the card is [card]
console.log(model.requests[1]?.messages.at(-1)?.content); // the refusal the model read
await rt.shutdown();

import { createRuntime, defineTool } from 'troupe';
import { ScriptedModel } from 'troupe/testing';
import { z } from 'zod';

const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email',
  parameters: z.object({ to: z.email(), subject: z.string() }),
  // `true` asks for every call; a function of the checked arguments asks for some.
  needsApproval: ({ to }) => !to.endsWith('@example.com'),
  async execute({ to, subject }) {
    return { content: `sent "${subject}" to ${to}` };
  },
});

// A scripted model mails a colleague, a partner and a whole list, then answers; a real model chooses.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'send_email', arguments: { to: 'bob@example.com', subject: 'draft' } }] },
  { toolCalls: [{ name: 'send_email', arguments: { to: 'ana@partner.org', subject: 'the offer' } }] },
  { toolCalls: [{ name: 'send_email', arguments: { to: 'all@partner.org', subject: 'the offer' } }] },
  { text: 'sent the draft and the offer' },
]);
const rt = await createRuntime({ model, tools: [sendEmail] });

// This program is the person: it approves the mail to one partner and rejects the mail to a list.
rt.approvalEvents().subscribe(({ type, approval }) => {
  if (type === 'decided') {
    console.log(`${approval.tool} ${approval.status} by ${approval.decision?.by ?? 'nobody'}`);
    return;
  }
  console.log(`${approval.agentId} asks to run ${approval.tool} ${approval.arguments} (${approval.reason})`);
  const decided = approval.arguments.includes('all@')
    ? rt.decide(approval.id, { action: 'reject', message: 'never mail a whole list', by: 'example' })
    : rt.decide(approval.id, { action: 'approve', digest: approval.digest, by: 'example' });
  decided.catch((error: unknown) => console.error(error));
});

const taskId = await rt.submit('mail the offer');
console.log((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).result);

// What the model read after each call: the result of the two that ran, the rejection of the third.
for (const message of model.requests.at(-1)?.messages ?? []) if (message.role === 'tool') console.log(message.content);
await rt.shutdown();

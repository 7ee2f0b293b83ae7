// A triage root hands a billing question to a billing agent, which then keeps the session.
import { createRuntime, taskText } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// The offline script: what each model call answers, in order.
const model = new ScriptedModel([
  // root's turn: it hands the conversation over.
  { toolCalls: [{ name: 'transfer_to_billing', arguments: { reason: 'a refund' } }] },
  // billing's turn on the same Task, then on the next message of the session.
  { text: 'Your refund of 12 EUR is on its way.' },
  { text: 'It reaches your account within 3 days.' },
]);

const rt = await createRuntime({ model, root: { handoffs: ['billing'] } });
await rt.createRole({ name: 'billing', prompt: 'You answer questions about invoices and refunds.' });

const first = await rt.submit('I was charged twice, please refund me.');
const answer = await rt.waitForAnswer(first, { timeoutMs: 10_000 });
console.log(`${answer.from}: ${taskText(answer)}`);

// The same session: the message goes to the billing agent, not back to root.
const second = await rt.submit('When will I see it?', { sessionId: first });
const next = await rt.waitForAnswer(second, { timeoutMs: 10_000 });
console.log(`${next.from}: ${taskText(next)}`);

if (next.from !== answer.from || answer.from === 'root') throw new Error('the session did not stay with the billing agent');
await rt.shutdown();

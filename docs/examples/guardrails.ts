import { type Guardrail, createRuntime, modelGuardrail, taskText } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// A function: an answer that names a password never leaves; the Task fails instead.
const noPasswords: Guardrail = {
  name: 'no-passwords',
  on: 'answer',
  check: (_, text) => (/password/i.test(text) ? { tripped: true, reason: 'the answer names a password' } : { tripped: false }),
};

// A model call: another model judges the prompt; "parallel" lets the turn's first model call
// start meanwhile, but no tool runs and no answer leaves before the verdict.
const judge = new ScriptedModel([{ text: '{"tripped": false}' }, { text: '{"tripped": false}' }]);
const onTopic = modelGuardrail({
  name: 'on-topic',
  on: 'input',
  parallel: true,
  model: judge,
  instructions: 'Trip when the request is not about our products.',
});

const model = new ScriptedModel([{ text: 'Our kettles ship in two days.' }, { text: 'The admin password is hunter2.' }]);
const rt = await createRuntime({ model, guardrails: [onTopic, noPasswords] });

const shipped = await rt.waitForAnswer(await rt.submit('How fast do kettles ship?'), { timeoutMs: 10_000 });
console.log(taskText(shipped));
const leaked = await rt.waitForAnswer(await rt.submit('What is the admin password?', { sessionId: 'other' }), { timeoutMs: 10_000 });
console.log(leaked.status, leaked.error?.code, leaked.error?.message);
await rt.shutdown();

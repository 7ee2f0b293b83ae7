import { Actions, HashedNgramEmbedder, HybridRouter, createRuntime } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// The router alone: candidates are anything with an id, a name and text fields.
const router = await HybridRouter.build(
  [
    { id: 'reviewer', name: 'ts-reviewer', fields: { name: 'ts-reviewer', description: 'Reviews TypeScript code and pull requests.' } },
    { id: 'poet', name: 'poet', fields: { name: 'poet', description: 'Writes poems and haiku.' } },
  ],
  {},
  { embedder: new HashedNgramEmbedder() },
);
const found = await router.route('someone who can review TypeScript');
console.log(found.method, found.chosen?.name, found.reason);
const refused = await router.route('bake me a sourdough loaf');
console.log(refused.method, refused.chosen, refused.reason);

// In a society: delegate_task given a description instead of an agent id.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'delegate_task', arguments: { role: 'someone who can review TypeScript', task: 'review src/index.ts' } }] },
  { text: 'LGTM' }, // the reviewer spawned for it answers
  { text: 'The reviewer says: LGTM' },
]);
const rt = await createRuntime({ model });
await rt.createRole({ name: 'ts-reviewer', prompt: 'You review code.', description: 'Reviews TypeScript code and pull requests.' });
await rt.createRole({ name: 'poet', prompt: 'You write poems.', description: 'Writes poems and haiku.' });
rt.bus.on(Actions.routed).subscribe((task) => console.log('routing.decided:', task.parameters['text']));
const taskId = await rt.submit('please get my TypeScript reviewed');
const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });
console.log(answer.status, answer.result);
await rt.shutdown();

// A child spawned under a parent takes its model, limits and tool policy, unless its spawn says otherwise.
import { createRuntime, taskText } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

const main = new ScriptedModel([], { name: 'main' });
const small = new ScriptedModel([{ text: 'the small model answers the helper' }], { name: 'small' });
const rt = await createRuntime({ model: main, models: { small } });
await rt.createRole({ name: 'lead', prompt: 'You lead a small team.' });
await rt.createRole({ name: 'helper', prompt: 'You help the lead.' });

const lead = await rt.spawn({ role: 'lead', model: 'small', limits: { maxSteps: 10 }, tools: { deny: ['terminate_agent'] } });
// Inherits: the model "small", at most 10 steps a turn, no terminate_agent.
const helper = await rt.spawn({ role: 'helper', parent: lead });

const answer = await rt.waitForAnswer(await rt.send(helper, 'Check the figures.'), { timeoutMs: 10_000 });
console.log(`${answer.from}: ${taskText(answer)}`);
const offered = small.requests[0]?.tools.map((tool) => tool.name) ?? [];
console.log(`helper may call terminate_agent: ${offered.includes('terminate_agent')}`);

if (main.requests.length > 0 || offered.includes('terminate_agent')) throw new Error('the helper did not inherit');
await rt.shutdown();

import assert from 'node:assert/strict';
import { OpenAIModel, createRuntime } from 'troupe';
import { MemoryLogger, ScriptedModel, SimulatedClock, sequentialIds, societyOf, startOpenAICompatibleServer } from 'troupe/testing';

// A scripted model: replies and tool calls in order, and a record of every request.
const model = new ScriptedModel([{ toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] }, { text: 'done' }]);
const rt = await createRuntime({ model, ids: sequentialIds(), logger: new MemoryLogger() });
await rt.createRole({ name: 'poet', prompt: 'You write haiku.' });
const taskId = await rt.submit('get me a haiku');
assert.equal((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status, 'completed');
assert.equal(model.requests.length, 2);
const ids = societyOf(rt).liveIds(); // ids from sequentialIds are predictable
assert.deepEqual(ids, ['root', 'poet-1']);
await rt.shutdown();

// A local OpenAI-compatible server: the real `openai` client path, scriptable per test (errors, hangs, 429s).
const server = await startOpenAICompatibleServer();
const served = await createRuntime({ model: new OpenAIModel({ baseURL: server.baseURL, apiKey: 'test-key', model: 'local' }) });
const servedTask = await served.submit('write a haiku about rain'); // unscripted, the server plays the offline playbook
console.log((await served.waitForAnswer(servedTask, { timeoutMs: 30_000 })).status, server.chatCalls);
await served.shutdown();
await server.close();

// A clock a test moves by hand, for timeouts and ages without waiting.
const clock = new SimulatedClock();
clock.advance(60_000);
console.log(clock.now());

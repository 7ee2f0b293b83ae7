import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { type TroupeError, createRuntime, defineTool, replayRuntime, taskText } from 'troupe';
import { ScriptedModel, expectSameAnswers } from 'troupe/testing';

// A tool that reaches outside (it declares nothing): its results are recorded, and a replay never runs it.
let lookups = 0;
const exchangeRate = defineTool({
  name: 'exchange_rate',
  description: 'The exchange rate between two currencies, now.',
  parameters: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ from, to }) => ({ content: `1 ${from} = ${(1.08 + lookups++ / 100).toFixed(2)} ${to}` }),
});

const dir = await mkdtemp(join(tmpdir(), 'troupe-replay-example-'));
const file = join(dir, 'rates.jsonl');

// 1. Record a run: the model (scripted here; a real one works the same), the tool's result, the clock, ids, the Task log.
const model = new ScriptedModel([{ toolCalls: [{ name: 'exchange_rate', arguments: { from: 'EUR', to: 'USD' } }] }, { text: 'One euro buys 1.08 dollars.' }]);
const rt = await createRuntime({ model, tools: [exchangeRate], record: file });
const answer = await rt.waitForAnswer(await rt.submit('How many dollars is a euro?'), { timeoutMs: 10_000 });
await rt.shutdown();
console.log(`recorded: ${taskText(answer)}`);

// 2. Replay it offline: no model, the tool not called, the same Tasks with the same ids and timestamps.
const replay = await replayRuntime(file, { tools: [exchangeRate] });
const report = await replay.finished;
console.log(`replayed ${report.tasks} Tasks; the tool ran ${lookups} time(s) in all`);

// 3. As a regression test: the recorded run still gives the same answers.
await expectSameAnswers(file, { tools: [exchangeRate] });

// 4. A change that makes the society ask the model something else stops the replay, with a diff.
const changed = await replayRuntime(file, { tools: [exchangeRate], root: { prompt: 'You are a terse root agent.' } });
const diverged = await changed.finished.catch((error: unknown) => error as TroupeError);
if (!(diverged instanceof Error)) throw new Error('the changed replay did not diverge');
console.log(diverged.code, diverged.message.split('\n').slice(0, 4).join('\n'));

await rm(dir, { recursive: true, force: true });

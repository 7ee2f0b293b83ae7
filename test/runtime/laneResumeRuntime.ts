/**
 * A runtime killed with two lanes mid-turn: run by laneResume.test.ts. Its clerk agent gets two
 * sessions' Tasks (`tally one`, `tally two`) and a third Task in the first session (`then say
 * hi`), which waits behind it. Each lane's turn calls `tally` with its mark, the result is
 * stored, and its next model call hangs. Once both lanes are there and durable, the one stdout
 * line is `{"clerk","one","two","hi"}` (agent and Task ids), and the test kill -9s it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { readPrompt } from '../../src/task/index.js';
import { tallyTool } from '../support/tallyTool.js';
import { ReplyingModel } from '../support/workerModel.js';

const [dir = '', ledger = ''] = process.argv.slice(2);
const model = new ReplyingModel((request) => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { hang: true };
  const mark = /tally (\w+)/.exec(readPrompt(last?.content ?? '')?.text ?? '')?.[1] ?? '?';
  return { toolCalls: [{ name: 'tally', arguments: { mark } }] };
});
const rt = await createRuntime({ dataDir: dir, model, tools: [tallyTool(ledger)], logger: new MemoryLogger() });
await rt.createRole({ name: 'clerk', prompt: 'Keep tallies.' });
const clerk = await rt.spawn({ role: 'clerk' });
const one = await rt.send(clerk, 'tally one');
const two = await rt.send(clerk, 'tally two');
const hi = await rt.send(clerk, 'then say hi', { sessionId: one });
// Both lanes past their tool step: two calls each, the second hanging.
while (model.requests.length < 4) await sleep(5);
// Store writes commit in the order they were made: once this one is durable, so is each turn so far.
await rt.createRole({ name: 'fence', prompt: 'Nothing.' });
process.stdout.write(`${JSON.stringify({ clerk, one, two, hi })}\n`);
await new Promise<never>(() => undefined);

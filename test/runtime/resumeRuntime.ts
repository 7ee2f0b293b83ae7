/**
 * A runtime interrupted in the middle of a turn: run by resume.test.ts, which kill -9s it when
 * it prints `mid-turn`. Its clerk agent is sent two Tasks of one session; the first turn calls `tally`, then:
 *   after-tool — the tool has run and its result is stored; the next model call hangs;
 *   in-tool    — the tool was asked for (and the request stored) but never finishes.
 * The first stdout line is `{"clerk", "first", "second"}` (agent and Task ids).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { ledgerMarks, tallyTool } from '../support/tallyTool.js';

const [dir = '', mode = 'after-tool', ledger = ''] = process.argv.slice(2);
const model = new ScriptedModel([{ toolCalls: [{ name: 'tally', arguments: { mark: 'one' } }] }, { hang: true }]);
const rt = await createRuntime({ dataDir: dir, model, tools: [tallyTool(ledger, { hang: mode === 'in-tool' })], logger: new MemoryLogger() });
await rt.createRole({ name: 'clerk', prompt: 'Keep tallies.' });
const clerk = await rt.spawn({ role: 'clerk' });
const first = await rt.send(clerk, 'tally one');
// The same session: the second waits for the first's turn.
const second = await rt.send(clerk, 'then say hi', { sessionId: first });
process.stdout.write(`${JSON.stringify({ clerk, first, second })}\n`);
const reached = mode === 'in-tool' ? () => ledgerMarks(`${ledger}.started`).length > 0 : () => model.requests.length >= 2;
while (!reached()) await sleep(5);
// Store writes commit in the order they were made: once this one is durable, so is the turn so far.
await rt.createRole({ name: 'fence', prompt: 'Nothing.' });
process.stdout.write('mid-turn\n');
await new Promise<never>(() => undefined);

/**
 * A runtime killed (-9) by its own model in the middle of a turn, for durabilityByAnnotation.test.ts.
 * Its clerk's turn calls `tally` (it changes the world), then `peek` twice; the model call after
 * the second `peek` kills the process, before anything since the wait for `tally`'s result was
 * asked to be durable. `peek` is annotated read-only, or (`peek-changes`) left to MCP's defaults.
 * Writes are held for a minute unless someone waits for them, so only the turn's own waits commit.
 * The first stdout line is `{"clerk", "task"}`.
 */
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { peekTool, tallyTool } from '../support/tallyTool.js';

const [dir = '', ledger = '', mode = 'peek-read-only'] = process.argv.slice(2);
const model = new ScriptedModel([
  { toolCalls: [{ name: 'tally', arguments: { mark: 'one' } }] },
  { toolCalls: [{ name: 'peek', arguments: { mark: 'a' } }] },
  { toolCalls: [{ name: 'peek', arguments: { mark: 'b' } }] },
  () => {
    process.kill(process.pid, 'SIGKILL');
    // Never reached in practice; were it, the ledger's mark would fail the test.
    return { toolCalls: [{ name: 'peek', arguments: { mark: 'after-the-kill' } }] };
  },
]);
const rt = await createRuntime({
  dataDir: dir,
  model,
  tools: [tallyTool(ledger), peekTool(`${ledger}.peek`, { readOnly: mode === 'peek-read-only' })],
  logger: new MemoryLogger(),
  commitDelayMs: 60_000,
});
await rt.createRole({ name: 'clerk', prompt: 'Keep tallies.' });
const clerk = await rt.spawn({ role: 'clerk' });
const task = await rt.send(clerk, 'tally one, then peek twice');
process.stdout.write(`${JSON.stringify({ clerk, task })}\n`);
await new Promise<never>(() => undefined);

/**
 * A runtime killed (-9) while a tool call waits for approval, or while an approved call runs: run
 * by approvals.crash.test.ts, which kills it when it prints `crash-point`. The root agent's one
 * reply asks for two calls at once: `tally` (it needs approval) and `peek`
 * (needs none). Modes:
 *   pending — peek has run and the Task is input-required, tally waits for a person;
 *   started — a person approved tally, which has begun and never finishes.
 * The first stdout line is `{"taskId"}`.
 */
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { awaitsApproval } from '../../src/task/index.js';
import { peekTool, tallyTool } from '../support/tallyTool.js';

const [dir = '', mode = 'pending', ledger = ''] = process.argv.slice(2);
const model = new ScriptedModel([
  {
    toolCalls: [
      { name: 'tally', arguments: { mark: 'one' } },
      { name: 'peek', arguments: { mark: 'looked' } },
    ],
  },
  { hang: true },
]);
const rt = await createRuntime({
  dataDir: dir,
  model,
  tools: [{ ...tallyTool(ledger, { hang: mode === 'started' }), needsApproval: true }, peekTool(`${ledger}.peek`, { readOnly: false })],
  logger: new MemoryLogger(),
});
const paused = new Promise<void>((resolve) => {
  rt.bus.on('*').subscribe((task) => {
    if (awaitsApproval(task)) resolve();
  });
});
const taskId = await rt.submit('tally one and peek');
process.stdout.write(`${JSON.stringify({ taskId })}\n`);
// The pause is announced once what the step's other calls wrote is durable.
await paused;
if (mode === 'started') {
  const [approval] = rt.approvals();
  await rt.decide(approval?.id ?? '', { action: 'approve' });
  const { existsSync } = await import('node:fs');
  while (!existsSync(`${ledger}.started`)) await new Promise((resolve) => setTimeout(resolve, 5));
}
process.stdout.write('crash-point\n');
await new Promise<never>(() => undefined);

/**
 * A runtime that keeps changing its organisation until it is killed: run by
 * crash.runtime.test.ts, which kill -9s it. Each line on stdout is an acknowledgement,
 * printed only after the call resolved: `role <id>`, `agent <id>`, `submit <taskId>`.
 */
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';

const [dir = '', round = '0'] = process.argv.slice(2);
// It spawns an agent every step and never terminates one, round after round: the live-agent
// limit is lifted so the test stays about what survives a kill, not about that limit.
const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), maxLiveAgents: 1_000_000 });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const role = await rt.createRole({ name: `r${round}-${i}`, prompt: 'work' });
  process.stdout.write(`role ${role.id}\n`);
  const agent = await rt.spawn({ role: role.id });
  process.stdout.write(`agent ${agent}\n`);
  const taskId = await rt.submit(`write a haiku about rain, round ${round} step ${i}`);
  process.stdout.write(`submit ${taskId}\n`);
}

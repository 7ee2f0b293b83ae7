// Child process of the memory crash test: observes Tasks and compacts (L1 → L2 → L3 → L4) in a
// loop until it is killed, printing a line for each Task only once `observe` resolved, that is,
// once its entry was committed. Usage: node --import tsx test/memory/compactionWriter.ts <dir> <round>
import { SimulatedClock } from '../../src/simulatedClock.js';
import { createLogger } from '../../src/logger.js';
import { AgentMemory, extractiveHelpers } from '../../src/memory/index.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { memoryTask, openEnv } from '../support/memoryFixture.js';
import { crashLimits } from './crashLimits.js';

const [dir, round] = process.argv.slice(2);
if (dir === undefined || round === undefined) throw new Error('usage: compactionWriter.ts <dir> <round>');

const env = openEnv(dir);
const facts = FactStoreDouble.open('agent', env);
// Each round starts a day after the last one began, so entries of earlier rounds age out too.
const clock = new SimulatedClock(Number(round) * 86_400_000);
const memory = await AgentMemory.open({ agentId: 'agent', db: env, facts, clock, logger: createLogger('warn'), limits: crashLimits });
const helpers = extractiveHelpers(memory.limits);
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before any kill.
const ack = (...fields: (string | number)[]): void => void process.stdout.write(`${fields.join(' ')}\n`);
ack('ready');

for (let n = 0; ; n++) {
  const id = `r${round}-${n}`;
  const outcome = await memory.observe(memoryTask({ id, to: 'agent', sessionId: `s${n % 3}`, importance: n % 4 === 0 ? 0.9 : 0.4 }, clock));
  ack(outcome, id);
  clock.advance(600_000);
  while (memory.compactionDue(clock.now())) {
    const report = await memory.compact(clock.now(), helpers);
    if (!report.progress) break;
  }
}

// Child process of the footprint test (run with --expose-gc): opens `count` empty agent memories
// on one LMDB environment and prints the heap they hold, per agent, as JSON.
// Usage: node --expose-gc --import tsx test/memory/footprint.ts <dir> <count>
import { systemClock } from '../../src/clock.js';
import { AgentMemory } from '../../src/memory/index.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { openEnv } from '../support/memoryFixture.js';

const [dir, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (dir === undefined || !Number.isSafeInteger(count)) throw new Error('usage: footprint.ts <dir> <count>');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const env = openEnv(dir);
// One FactStore for all: this measures what the memory itself holds (part facts measures its own).
const facts = FactStoreDouble.open('shared');
const limits = {};
// Warm up: the sub-db handle, the limits' parse and the code paths are made once, not per agent.
await AgentMemory.open({ agentId: 'warm', db: env, facts, clock: systemClock, limits });

gc();
const before = process.memoryUsage().heapUsed;
const memories: AgentMemory[] = [];
for (let i = 0; i < count; i++) memories.push(await AgentMemory.open({ agentId: `agent-${i}`, db: env, facts, clock: systemClock, limits }));
gc();
const after = process.memoryUsage().heapUsed;
process.stdout.write(`${JSON.stringify({ agents: memories.length, bytesPerAgent: (after - before) / count })}\n`);
await env.close();

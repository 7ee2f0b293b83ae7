import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { AgentMemory } from '../../src/memory/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';
import { type Op, opArb, settle } from './memoryOps.js';

// Any history, written to LMDB and reopened, gives back the same tiers; and a memory without a
// db (a runtime without a data dir) behaves exactly as one with a db.

const later = cleanupAfterEach();
const limits = { l1Capacity: 3, l2Capacity: 2, l3Capacity: 3, maxBacklog: 2, entriesPerStep: 2 };

async function run(memory: AgentMemory, clock: SimulatedClock, ops: readonly Op[]): Promise<void> {
  for (const [i, op] of ops.entries()) {
    switch (op.kind) {
      case 'observe':
        await memory.observe(
          memoryTask({ id: `t${i}`, sessionId: `s${op.session}`, text: op.text, ...(op.importance === null ? {} : { importance: op.importance }) }),
        );
        break;
      case 'advance':
        clock.advance(op.ms);
        break;
      case 'step':
      case 'settle':
        await settle(memory, clock);
        break;
      case 'retrieve':
        await memory.noteRetrieved(memory.l1().filter((_, j) => op.picks.includes(j)));
        break;
      default:
        op satisfies never;
    }
  }
}

const tiersOf = (memory: AgentMemory): unknown => ({ l1: memory.l1(), l2: memory.l2(), l3: memory.l3(), counts: memory.counts() });

describe('memory persistence (properties)', () => {
  it('reopening gives the same tiers, and a memory without a db behaves the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-memory-'));
    later(() => rm(dir, { recursive: true, force: true }));
    // No fsync: this checks what a reopen reads, not durability (the kill -9 test does).
    let env = open({ path: dir, noSubdir: false, maxDbs: 20, noSync: true });
    later(() => env.close());
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const agentId = `agent-${round++}`;
        const facts = FactStoreDouble.open(agentId, env);
        const stored = await openMemory({ agentId, db: env, limits, facts, clock: new SimulatedClock(1_000) });
        const inMemory = await openMemory({ agentId, db: null, limits, clock: new SimulatedClock(1_000) });
        await run(stored.memory, stored.clock, ops);
        await run(inMemory.memory, inMemory.clock, ops);
        expect(tiersOf(inMemory.memory)).toEqual(tiersOf(stored.memory));
        await stored.memory.close();
        await env.close();
        env = open({ path: dir, noSubdir: false, maxDbs: 20, noSync: true });
        const reopened = await openMemory({ agentId, db: env, limits, facts: FactStoreDouble.open(agentId, env) });
        expect(tiersOf(reopened.memory)).toEqual(tiersOf(stored.memory));
        expect(reopened.logger.entries).toEqual([]);
      }),
      loggedSeed('memory reopens the same'),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/random.js';
import { type KillPoint, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';
import { graphHarness, testGraph } from './graphFixture.js';
import { expectGraphLaws } from './graphInvariants.js';

// A kill -9 in the middle of a batch of changes loses nothing that was acknowledged, and leaves no
// edge without its nodes: each change is one transaction, whole or absent.

const { openEnv, tempDir } = graphHarness();
const rounds = 10;

async function runAndKill(dir: string, round: number, at: KillPoint): Promise<string[][]> {
  const lines = await runUntilKilled('test/graph/crashGraphWriter.ts', [dir, String(round)], at);
  return lines.map((line) => line.split(' '));
}

describe('graph memory: crash safety', () => {
  it(`keeps every acknowledged change over ${rounds} kill -9 rounds, with no dangling edge`, { timeout: 90_000 }, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`graph crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await tempDir();
    // Nodes whose removal was started: gone or not, unless acknowledged.
    const removing = new Set<string>();
    const acked: string[][] = [];
    for (let round = 0; round < rounds; round++) {
      const at = randomKillPoint(random, 40);
      const acks = await runAndKill(dir, round, at);
      expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
      acked.push(...acks);
      for (const [kind, id = ''] of acks) if (kind === 'removing') removing.add(id);
      const { db } = await openEnv(dir);
      const { memory, logger } = await testGraph(db);
      for (const [kind, a = '', type = '', b = ''] of acked) {
        if (kind === 'node' && !removing.has(a)) expect(memory.graph.node(a), `acknowledged node ${a}`).toBeDefined();
        if (kind === 'removed') expect(memory.graph.node(a), `acknowledged removal of ${a}`).toBeUndefined();
        if (kind === 'edge' && !removing.has(a) && !removing.has(b)) {
          expect(memory.graph.edge({ from: a, to: b, type: type as 'produces' }), `acknowledged edge ${a} ${type} ${b}`).toBeDefined();
        }
      }
      // No edge dangles (a dropped one would have been logged), and every law holds.
      expect(logger.entries).toEqual([]);
      expectGraphLaws(memory.graph);
      await db.close();
    }
  });
});

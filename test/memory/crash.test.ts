import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/random.js';
import { type KillPoint, crashRounds, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { envHarness, openMemory } from '../support/memoryFixture.js';
import { holdings } from '../support/memoryHolders.js';
import { settle } from './memoryOps.js';
import { crashLimits } from './crashLimits.js';

// Issue 14: a restart, even after kill -9 during compaction, loses no acknowledged memory entry
// and duplicates none, and leaves no half-done promotion to L4.

const { tempEnv, reopen } = envHarness();
const rounds = crashRounds(16);
/** Generous: each round starts a Node process, on a machine that may be loaded. */
const timeoutMs = rounds * 20_000;

async function runAndKill(dir: string, round: number, at: KillPoint): Promise<string[]> {
  const lines = await runUntilKilled('test/memory/compactionWriter.ts', [dir, String(round)], at);
  return lines.map((line) => {
    const [outcome, id] = line.split(' ');
    if (outcome !== 'kept' || id === undefined) throw new Error(`unexpected line from the writer: ${line}`);
    return id;
  });
}

/** Opens the memory as the next process would, finishes what a crash left pending, and checks every Task it holds. */
async function checkAfterCrash(dir: string, acknowledged: readonly string[], label: string): Promise<void> {
  const env = reopen(dir);
  const facts = FactStoreDouble.open('agent', env);
  const { memory, clock, logger } = await openMemory({ agentId: 'agent', db: env, facts, limits: crashLimits });
  expect(
    logger.entries.filter((entry) => entry.level === 'error'),
    label,
  ).toEqual([]);
  const held = holdings(memory, facts);
  for (const [id, holding] of held) expect(holding.places, `${label}: task ${id} held twice`).toBe(1);
  for (const id of acknowledged) expect(held.has(id) || memory.counts().pendingFacts > 0, `${label}: acknowledged task ${id} lost`).toBe(true);
  await settle(memory, clock);
  const settled = holdings(memory, facts);
  expect(memory.counts().pendingFacts, label).toBe(0);
  for (const id of acknowledged) expect(settled.get(id)?.places, `${label}: acknowledged task ${id} after settling`).toBe(1);
  for (const [id, holding] of settled) expect(holding.places, `${label}: task ${id} held twice after settling`).toBe(1);
  // Each promotion's facts are all there, each part once.
  const parts = new Map<string, number[]>();
  for (const fact of facts.facts) {
    const { promotionId, part } = fact.metadata as { promotionId: string; part: number };
    parts.set(promotionId, [...(parts.get(promotionId) ?? []), part]);
  }
  for (const [promotionId, list] of parts)
    expect(
      list.sort((a, b) => a - b),
      `${label}: promotion ${promotionId}`,
    ).toEqual(list.map((_, i) => i));
  await env.close();
}

describe('memory: crash safety', () => {
  it(`loses and duplicates no entry over ${rounds} kill -9 rounds during observe and compaction`, { timeout: timeoutMs }, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.info(`memory crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const { dir, env } = await tempEnv();
    await env.close();
    const acknowledged: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const at = randomKillPoint(random, 40);
      const acks = await runAndKill(dir, round, at);
      expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
      acknowledged.push(...acks);
      await checkAfterCrash(dir, acknowledged, `round ${round} (killed after ${at.acks} acks + ${at.jitterMs} ms)`);
    }
  });
});

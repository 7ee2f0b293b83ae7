import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { createRuntime } from '../../src/runtime/index.js';
import { finalStatuses } from '../../src/task/index.js';
import { crashRounds, randomKillPoint, runUntilKilled } from '../support/killedWriter.js';

// Issue 30, point 2: a runtime whose every requirement spawns a worker, delegates to it and
// terminates it, killed (-9) at random moments, never leaves a worker behind. A turn a kill
// interrupted owns at most the one worker its spawn_agent call made (a resumed turn gets that one
// back, never a second), so after every kill root has no more live children than unfinished
// Tasks; and once a clean start has finished them, none at all. Every acknowledged Task has
// exactly one answer in its log after every kill: none lost, none given again by a resumed turn.

/** Rounds per run; the file runs twice (two data dirs, two seeds): 16 kills a run of the suite. */
const rounds = crashRounds(8);

/** Root's live children and the Tasks it had accepted and not answered, as the store has them. */
async function rootState(dir: string): Promise<{ liveChildren: string[]; waiting: string[] }> {
  const store = await openOrgStore({ dir });
  try {
    expect(store.quarantined()).toEqual([]);
    const liveChildren = store.agents().filter((agent) => agent.parentAgentId === 'root' && agent.status === 'active');
    return { liveChildren: liveChildren.map((agent) => agent.id), waiting: store.waiting('root').map((task) => task.id) };
  } finally {
    await store.close();
  }
}

/** Every acknowledged Task has exactly one final answer to the user in its log: none lost, none given twice by a resumed turn. */
async function expectAnsweredOnce(dir: string, taskIds: readonly string[], where: string): Promise<void> {
  const store = await openOrgStore({ dir });
  try {
    for (const taskId of taskIds) {
      const answers = store.messages(taskId).filter((task) => task.id === taskId && task.to === 'user' && finalStatuses.has(task.status));
      expect(answers.length, `${where}: answers to ${taskId}`).toBe(1);
    }
  } finally {
    await store.close();
  }
}

async function killLoop(run: number): Promise<void> {
  const seed = Number(process.env['CRASH_SEED'] ?? (Date.now() + run) % 1_000_000_000);
  console.log(`orphans crash test, run ${run}: seed ${seed} (replay with CRASH_SEED=${seed})`);
  const random = seededRandom(seed);
  const dir = await mkdtemp(join(tmpdir(), 'troupe-orphans-crash-'));
  const answered: string[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const at = randomKillPoint(random, 4);
      const acks = await runUntilKilled('test/runtime/crashOrphans.ts', [dir, String(round)], at);
      expect(acks.length, `round ${round}`).toBeGreaterThanOrEqual(at.acks);
      const { liveChildren, waiting } = await rootState(dir);
      answered.push(...acks.map((line) => line.split(' ')[1] ?? ''));
      await expectAnsweredOnce(dir, answered, `seed ${seed} round ${round}`);
      expect(
        liveChildren.length,
        `seed ${seed} round ${round}: live workers ${liveChildren.join(', ')} for unfinished Tasks ${waiting.join(', ')}`,
      ).toBeLessThanOrEqual(waiting.length);
    }
    // A clean start finishes what the last kill interrupted: every worker is let go.
    const { waiting } = await rootState(dir);
    const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger() });
    const answers = await Promise.all(waiting.map((taskId) => rt.waitForAnswer(taskId, { timeoutMs: 300_000 })));
    await rt.shutdown();
    expect(answers.map((answer) => answer.status)).toEqual(waiting.map(() => 'completed'));
    expect((await rootState(dir)).liveChildren, `seed ${seed}`).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a society hiring a worker per requirement, killed at random moments', () => {
  for (const run of [1, 2]) {
    // The timeout guards against a hang, not a measure: each round starts a process, slow on a loaded machine.
    it(`leaves no orphaned worker over ${rounds} kill -9 rounds (run ${run})`, () => killLoop(run), 600_000);
  }
});

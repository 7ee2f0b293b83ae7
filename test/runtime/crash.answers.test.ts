import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrgStore } from '../../src/org/index.js';
import { seededRandom } from '../../src/random.js';
import { finalStatuses } from '../../src/task/index.js';
import { crashRounds, runUntilSelfKilled } from '../support/killedWriter.js';

// An answer reaches the user only once its Task's answered state is durable: a runtime killed
// (-9) the instant an answer reaches the user finds that Task answered at restart, and never
// answers it again. Killing at that instant, not at a random time after it, hits the window
// between the answer leaving and its commit every round, where a kill from outside hit it in
// about one run of six rounds in eight; so a few rounds test what many did.

const rounds = crashRounds(16);

describe('a runtime killed the instant an answer reaches the user', () => {
  it(`never answers a Task twice and keeps every answer given, over ${rounds} kill -9 rounds`, async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 1_000_000_000);
    console.log(`answer crash test: seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'troupe-answer-crash-'));
    const received = new Map<string, number>();
    try {
      for (let round = 0; round < rounds; round++) {
        const killAt = 1 + Math.floor(random() * 4);
        const lines = await runUntilSelfKilled('test/runtime/crashAnswerWriter.ts', [dir, String(round), String(killAt)]);
        for (const line of lines) {
          const [, taskId = ''] = line.split(' ');
          received.set(taskId, (received.get(taskId) ?? 0) + 1);
        }
        const twice = [...received].filter(([, times]) => times > 1).map(([taskId]) => taskId);
        expect(twice, `round ${round} (seed ${seed}): Tasks the user was answered more than once`).toEqual([]);
        const store = await openOrgStore({ dir });
        try {
          for (const taskId of received.keys()) {
            const answers = store.messages(taskId).filter((task) => task.id === taskId && task.to === 'user' && finalStatuses.has(task.status));
            expect(answers.length, `round ${round} (seed ${seed}): answers to ${taskId} in its log`).toBe(1);
            expect(
              store.waiting('root').map((task) => task.id),
              `round ${round}: ${taskId} still waiting`,
            ).not.toContain(taskId);
          }
        } finally {
          await store.close();
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // A guard against a hang, not a measure: a process start a round takes minutes on a loaded 2-core machine.
  }, 900_000);
});

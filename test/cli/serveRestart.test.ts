import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { ScriptedModel, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { ServeProcess } from '../support/serveProcess.js';

const later = cleanupAfterEach();

const workers = 40;
const tasksEach = 50;

/** A data dir whose `workers` agents each hold `tasksEach` unanswered Tasks of one session, the first of each mid-turn. */
async function busyDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-restart-'));
  later(() => rm(dir, { recursive: true, force: true }));
  const hangs = Array.from({ length: workers + 1 }, () => ({ hang: true as const }));
  const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel(hangs) });
  await rt.createRole({ name: 'w', prompt: 'work' });
  for (let i = 0; i < workers; i++) {
    const id = await rt.spawn({ role: 'w' });
    // One session each: its first Task's turn hangs and the others wait behind it.
    await Promise.all(Array.from({ length: tasksEach }, (_, n) => rt.send(id, `job ${n}`, { sessionId: `jobs-${i}` })));
  }
  // A drain of 0 leaves every unanswered Task in the store for the next start.
  const summary = await rt.shutdown({ drainTimeoutMs: 0 });
  expect(summary.pendingTasks).toBe(workers * tasksEach);
  return dir;
}

/** Yields to the event loop until `condition` holds; only waits, never decides what the test sees. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('troupe serve restarting on thousands of waiting Tasks', () => {
  it('opens its HTTP API and answers /health while the Tasks resume, maxConcurrentModelCalls at a time', { timeout: 120_000 }, async () => {
    const dir = await busyDataDir();
    const model = await startOpenAICompatibleServer();
    later(() => model.close());
    model.script(...Array.from({ length: workers * tasksEach }, () => ({ hang: true as const })));

    const serve = new ServeProcess(['--data-dir', dir, '--port', '0', '--no-console', '--drain-timeout', '0'], {
      OPENAI_BASE_URL: model.baseURL,
      TROUPE_MAX_CONCURRENT_MODEL_CALLS: '3',
    });
    later(async () => {
      serve.signal('SIGKILL');
      await serve.done;
    });
    const url = await serve.url();
    await eventually(() => model.chatCalls >= 3, 'the first resumed model calls');
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
    }
    const agents = (await (await fetch(`${url}/api/agents`)).json()) as { agents: { queued: number }[] };
    expect(agents.agents.reduce((sum, agent) => sum + agent.queued, 0)).toBe(workers * (tasksEach - 1));
    // Every agent has a turn to resume, but only three model calls are in flight.
    expect(model.chatCalls).toBe(3);

    serve.signal('SIGTERM');
    expect(await serve.done).toBe(0);
    expect((await serve.log('troupe serve stopped'))['pendingTasks']).toBe(workers * tasksEach);
  });
});

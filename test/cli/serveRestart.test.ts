import { describe, expect, it } from 'vitest';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { ServeProcess } from '../support/serveProcess.js';
import { waitingTasksDataDirForTest } from '../support/waitingTasksDataDir.js';

const later = cleanupAfterEach();

const workers = 40;
const tasksEach = 50;

/** Yields to the event loop until `condition` holds; only waits, never decides what the test sees. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

/** `troupe serve --no-console` on `dir`, its model a local server whose `calls` calls all hang; both stopped after the test. */
async function serveOnHangingModel(dir: string, calls: number, env: Record<string, string>): Promise<{ serve: ServeProcess; model: OpenAICompatibleServer }> {
  const model = await startOpenAICompatibleServer();
  later(() => model.close());
  model.script(...Array.from({ length: calls }, () => ({ hang: true as const })));
  const serve = new ServeProcess(['--data-dir', dir, '--port', '0', '--no-console', '--drain-timeout', '0'], { OPENAI_BASE_URL: model.baseURL, ...env });
  later(async () => {
    serve.signal('SIGKILL');
    await serve.done;
  });
  return { serve, model };
}

describe('troupe serve restarting on thousands of waiting Tasks', () => {
  it('opens its HTTP API and answers /health while the Tasks resume, maxConcurrentModelCalls at a time', { timeout: 120_000 }, async () => {
    const { dir } = await waitingTasksDataDirForTest(later, workers, tasksEach);
    const { serve, model } = await serveOnHangingModel(dir, workers * tasksEach, { TROUPE_MAX_CONCURRENT_MODEL_CALLS: '3' });
    const url = await serve.url();
    await serve.log('agents restored');
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

  it('answers /health while /ready says restoring, and logs when the restore starts and ends', { timeout: 180_000 }, async () => {
    // Large enough, one agent a slice: the restore takes a hundred turns of the event loop, listening a few.
    const built = await waitingTasksDataDirForTest(later, 100, 100);
    const { serve } = await serveOnHangingModel(built.dir, built.pendingTasks, { TROUPE_RESTORE_SLICE_TASKS: '1' });
    const url = await serve.url();
    const health = await fetch(`${url}/health`);
    const ready = await fetch(`${url}/ready`);
    expect(health.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, state: 'restoring', restore: { agents: 101 } });

    const started = await serve.log('restoring agents in the background');
    expect(started).toMatchObject({ agents: 101, sliceTasks: 1 });
    const done = await serve.log('agents restored');
    expect(done).toMatchObject({ agents: 101, restored: 101, tasks: built.pendingTasks });
    expect(done['ms']).toEqual(expect.any(Number));
    const order = serve.logs.map((line) => line.msg).filter((msg) => ['HTTP API listening', 'agents restored'].includes(msg));
    expect(order).toEqual(['HTTP API listening', 'agents restored']);
    expect(await (await fetch(`${url}/ready`)).json()).toEqual({ ready: true, state: 'running' });

    serve.signal('SIGTERM');
    expect(await serve.done).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { SimulatedClock } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { HeldCallsModel } from '../support/heldCalls.js';
import { type Served, call, serve } from '../support/httpServerFixture.js';
import { quietRuntime, tick, until } from '../support/runtimeFixture.js';

// When an agent's memory cannot keep up, intake refuses new work with `memory_behind` (the caller
// sees it and may try again) instead of accepting the work and memory dropping what it says.

const dataDir = tempDirsAfterEach('troupe-memory-backpressure-');
const small = { l1Capacity: 4, maxBacklog: 4 };

describe('memory that cannot keep up', () => {
  it('refuses new work at intake, counting an answer to come for each Task taken, and keeps all it took', async () => {
    const model = new HeldCallsModel();
    const { rt, logger } = await quietRuntime({ model, memory: { limits: small }, maxLanesPerAgent: 100 });
    const accepted: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 10 && refusal === undefined; i++) {
      try {
        accepted.push(await rt.submit(`request ${i}`));
      } catch (error) {
        refusal = error;
      }
    }
    // L1 (root's spawn notice, then each Task), an answer to come for each Task taken, and the new
    // Task's request and answer stay within l1Capacity + maxBacklog less a quarter (7): 1+0+2, 2+1+2, 3+2+2.
    expect(accepted).toHaveLength(3);
    expect(refusal).toMatchObject({ code: 'memory_behind', context: { agentId: 'root', retryAfterSeconds: 1 } });
    expect(String(refusal)).toMatch(/root's memory holds 4 recent Tasks, 3 Tasks it took are in progress .* \(7 entries\)/);
    // Every Task taken is answered and remembered: nothing refused by memory.
    await until(() => model.waiting.length === 3, 'three turns in flight');
    for (const held of model.waiting) held.release();
    for (const taskId of accepted) expect((await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).status).toBe('completed');
    const remembered = (await rt.memory('root', { tier: 'l1', limit: 100 })).entries.map((entry) => entry.sessionId);
    for (const taskId of accepted) expect(remembered.filter((sessionId) => sessionId === taskId).length).toBeGreaterThanOrEqual(1);
    expect(logger.entries.filter((entry) => /memory refused/.test(entry.message))).toEqual([]);
    // With the Tasks answered, new work is taken again.
    expect(await rt.submit('one more')).toEqual(expect.any(String));
    await rt.shutdown({ drainTimeoutMs: 0 });
  });

  it('holds back a flood sent all at once, even while the memory is still opening, and loses nothing it took', async () => {
    const dir = await dataDir();
    const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), memory: { limits: small } });
    const submits = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => rt.submit(`request ${i}`)));
    const accepted = submits.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const refused = submits.flatMap((result) => (result.status === 'rejected' ? [(result.reason as { code?: string }).code] : []));
    // Each Task expected to add its request and its answer: at most 3 of them within 7 entries.
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThanOrEqual(3);
    expect(new Set(refused)).toEqual(new Set(['memory_behind']));
    for (const taskId of accepted) expect((await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).status).toBe('completed');
    // Each Task taken is in root's memory (its session has entries or facts): no session was left with nothing.
    for (const taskId of accepted) {
      const { counts } = await rt.memory('root', { sessionId: taskId });
      expect(counts.l1 + counts.l2 + counts.l3 + counts.l4, `session ${taskId}`).toBeGreaterThan(0);
    }
    await rt.shutdown();
  });

  it('is a 429 with Retry-After over HTTP', async () => {
    const served: Served = await serve({ model: new HeldCallsModel(), runtime: { memory: { limits: small } }, memory: true });
    try {
      const statuses: number[] = [];
      let refused: Awaited<ReturnType<typeof call<{ error?: { code?: string } }>>> | undefined;
      for (let i = 0; i < 10 && refused === undefined; i++) {
        const reply = await call<{ error?: { code?: string } }>(served.url, '/api/submit', { json: { text: `request ${i}` } });
        statuses.push(reply.status);
        if (reply.status !== 201) refused = reply;
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
      expect(refused?.body.error?.code).toBe('memory_behind');
      expect(refused?.headers.get('retry-after')).toBe('1');
    } finally {
      await served.close();
    }
  });

  it('compacts a memory restored past its capacity when it opens, not at the next sweep', async () => {
    const dir = await dataDir();
    // Compaction never runs in the first life: its sweep is a day away on a clock that does not move, and nothing makes it due
    // while L1 is within capacity; the second life opens with a smaller capacity, so L1 is past it.
    const clock = new SimulatedClock();
    const first = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), clock, memory: { limits: { l1Capacity: 40 } } });
    for (let i = 0; i < 5; i++) await first.waitForAnswer(await first.submit(`hello ${i}`), { timeoutMs: 10_000 });
    const before = (await first.memory('root')).counts.l1;
    await first.shutdown();
    expect(before).toBeGreaterThan(small.l1Capacity);
    const second = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), clock, memory: { limits: small } });
    for (let turn = 0; (await second.memory('root')).counts.l1 > small.l1Capacity; turn++) {
      if (turn > 20_000) throw new Error('the memory restored past its capacity was not compacted');
      await tick();
    }
    await second.shutdown();
  });
});

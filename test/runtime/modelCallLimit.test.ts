import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import { ModelCallLimiter } from '../../src/runtime/limits/modelCallLimiter.js';
import { quietRuntime, recordBus, rejectedCode, tick, until } from '../support/runtimeFixture.js';

/** The agent that made a model request, read from its system prompt. */
const caller = (request: ChatRequest | undefined): string => /You are agent (\S+)/.exec(request?.messages[0]?.content ?? '')?.[1] ?? '';

describe('ModelCallLimiter', () => {
  it('runs at most maxConcurrent, hands slots to waiters oldest first, refuses past maxQueued and lets an aborted waiter go', async () => {
    const limiter = new ModelCallLimiter({ maxConcurrent: 1, maxQueued: 2 });
    const first = await limiter.acquire();
    const order: string[] = [];
    const controller = new AbortController();
    const second = limiter.acquire(controller.signal).then((release) => (order.push('second'), release));
    const third = limiter.acquire().then((release) => (order.push('third'), release));
    expect(await rejectedCode(limiter.acquire())).toBe('model_queue_full');
    expect([limiter.running, limiter.queued]).toEqual([1, 2]);

    controller.abort(new Error('terminated'));
    await expect(second).rejects.toThrow('terminated');
    expect(limiter.queued).toBe(1);
    first();
    first(); // a second call gives back nothing more
    (await third)();
    expect(order).toEqual(['third']);
    expect([limiter.running, limiter.queued]).toEqual([0, 0]);
  });
});

describe('concurrent model calls across the society', () => {
  it('queues calls past maxConcurrentModelCalls, fails the one past maxQueuedModelCalls with model_queue_full, and starts a waiter when a slot frees', async () => {
    const { rt, model } = await quietRuntime({
      maxConcurrentModelCalls: 1,
      maxQueuedModelCalls: 2,
      steps: Array.from({ length: 4 }, () => ({ hang: true as const })),
    });
    const seen = recordBus(rt);
    await rt.createRole({ name: 'w', prompt: 'work' });
    const workers = [await rt.spawn({ role: 'w' }), await rt.spawn({ role: 'w' }), await rt.spawn({ role: 'w' })];
    await rt.submit('one');
    for (const worker of workers) await rt.send(worker, 'work');

    const refused = (): number => seen.filter((task) => task.status === 'failed' && task.error?.code === 'model_queue_full').length;
    await until(() => refused() === 1, 'a turn refused by the full queue');
    for (let i = 0; i < 20; i++) await tick();
    // One call reached the model; two wait for its slot; the fourth was refused.
    expect(model.requests).toHaveLength(1);

    // Its agent terminated, the running call is aborted and its slot goes to the oldest waiter.
    const running = caller(model.requests[0]);
    await rt.terminate(running, { by: 'user', mode: 'abort' });
    await until(() => model.requests.length === 2, 'the next call to start');
    expect(caller(model.requests[1])).not.toBe(running);
    expect(refused()).toBe(1);
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
});

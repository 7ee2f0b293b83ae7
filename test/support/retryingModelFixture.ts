import { RetryingModel, type RetryPolicy, defaultRetryPolicy } from '../../src/llm/index.js';
import { MemoryLogger, ScriptedModel, SimulatedClock } from '../../src/testing.js';

/** Lets every queued promise callback and I/O event run (a turn of the event loop, not a sleep). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A RetryingModel over a ScriptedModel playing `steps`, on a simulated clock, its random draws `random` (0: waits without jitter). */
export function retryingModel(steps: ConstructorParameters<typeof ScriptedModel>[0], policy: RetryPolicy = defaultRetryPolicy, random = () => 0) {
  const inner = new ScriptedModel(steps);
  const clock = new SimulatedClock();
  const logger = new MemoryLogger();
  const model = new RetryingModel(inner, policy, { clock, logger, random });
  return { inner, clock, logger, model };
}

/** Advances the clock to each due timer in turn and returns the waits it found. */
export async function runTimers(clock: SimulatedClock, done: () => boolean): Promise<number[]> {
  const waits: number[] = [];
  for (let guard = 0; guard < 20 && !done(); guard++) {
    await settle();
    if (clock.pending === 0) continue;
    const before = clock.now();
    // Step 1 ms at a time up to the timer so an early retry would be caught.
    for (let step = 0; clock.pending > 0 && step < 120_000; step++) clock.advance(1);
    waits.push(clock.now() - before);
  }
  return waits;
}

import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../src/logger.js';
import { SimulatedClock } from '../src/simulatedClock.js';
import { SummarisedWarning } from '../src/summarisedWarning.js';

describe('SummarisedWarning', () => {
  it('logs the first at once, the rest of its interval as one line counted by kind, and nothing for a quiet interval', () => {
    const logger = new MemoryLogger();
    const clock = new SimulatedClock();
    const warning = new SummarisedWarning<'a' | 'b'>(logger, clock, 'dropped', 1_000);
    warning.add('a', { n: 1 });
    for (let n = 2; n <= 1_000; n++) warning.add(n % 2 === 0 ? 'b' : 'a', { n });
    expect(logger.entries.map((entry) => entry.fields)).toEqual([{ kind: 'a', n: 1 }]);

    clock.advance(1_000);
    expect(logger.entries.map((entry) => entry.fields)).toEqual([
      { kind: 'a', n: 1 },
      { more: 999, byKind: { b: 500, a: 499 }, intervalMs: 1_000, example: { kind: 'b', n: 2 } },
    ]);
    clock.advance(1_000);
    expect(logger.entries).toHaveLength(2);
    expect(clock.pending).toBe(0);

    // After a quiet interval, the next is logged at once again.
    warning.add('b', { n: 1_001 });
    expect(logger.entries).toHaveLength(3);
  });

  it('logs what it counted when closed, and nothing after', () => {
    const logger = new MemoryLogger();
    const clock = new SimulatedClock();
    const warning = new SummarisedWarning<'a'>(logger, clock, 'dropped', 1_000);
    warning.add('a', {});
    warning.add('a', {});
    warning.close();
    warning.add('a', {});
    expect(logger.entries.map((entry) => entry.fields['more'])).toEqual([undefined, 1]);
    expect(clock.pending).toBe(0);
  });
});

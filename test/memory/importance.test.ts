import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseImportance, effectiveImportance } from '../../src/memory/index.js';
import { Actions } from '../../src/task/index.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { memoryTask } from '../support/memoryFixture.js';

const day = 86_400_000;
const options = { halfLifeMs: day, retrievalBoost: 0.1 };

describe('effectiveImportance', () => {
  it('halves every half-life, adds the boost per retrieval, and stops at 1', () => {
    expect(effectiveImportance({ importance: 0.8, retrievals: 0, createdAt: 0 }, 0, options)).toBe(0.8);
    expect(effectiveImportance({ importance: 0.8, retrievals: 0, createdAt: 0 }, day, options)).toBeCloseTo(0.4);
    expect(effectiveImportance({ importance: 0.8, retrievals: 0, createdAt: 0 }, 2 * day, options)).toBeCloseTo(0.2);
    expect(effectiveImportance({ importance: 0.8, retrievals: 2, createdAt: 0 }, day, options)).toBeCloseTo(0.6);
    expect(effectiveImportance({ importance: 0.8, retrievals: 5, createdAt: 0 }, 0, options)).toBe(1);
    // An entry from the future (clocks of two hosts) counts as new, not as more important.
    expect(effectiveImportance({ importance: 0.8, retrievals: 0, createdAt: day }, 0, options)).toBe(0.8);
  });

  // Thousandths: the values an option or a tag holds (subnormal doubles would only test float rounding).
  const fraction = fc.integer({ min: 0, max: 1_000 }).map((n) => n / 1_000);
  const entry = fc.record({ importance: fraction, retrievals: fc.nat(1_000), createdAt: fc.nat(1e12) });
  const decay = fc.record({ halfLifeMs: fc.integer({ min: 1, max: 1e10 }), retrievalBoost: fraction });

  it('a retrieval never lowers it, and raises it while it is below 1 (property)', () => {
    fc.assert(
      fc.property(entry, decay, fc.nat(1e10), (e, d, age) => {
        const now = e.createdAt + age;
        const before = effectiveImportance(e, now, d);
        const after = effectiveImportance({ ...e, retrievals: e.retrievals + 1 }, now, d);
        expect(after).toBeGreaterThanOrEqual(before);
        if (before < 1 - d.retrievalBoost && d.retrievalBoost > 0) expect(after).toBeGreaterThan(before);
        expect(after).toBeLessThanOrEqual(1);
        expect(before).toBeGreaterThanOrEqual(0);
      }),
      loggedSeed('retrieval raises effective importance'),
    );
  });

  it('age never raises it, and lowers it while anything is left to decay (property)', () => {
    fc.assert(
      fc.property(entry, decay, fc.nat(1e10), fc.integer({ min: 1, max: 1e10 }), (e, d, age, more) => {
        const now = e.createdAt + age;
        const younger = effectiveImportance(e, now, d);
        const older = effectiveImportance(e, now + more, d);
        expect(older).toBeLessThanOrEqual(younger);
        const decayed = e.importance * 0.5 ** (age / d.halfLifeMs);
        // Strictly lower when the decaying part is visible in a double and the cap is not reached.
        if (younger < 1 && decayed > 1e-9 && more >= d.halfLifeMs / 100) expect(older).toBeLessThan(younger);
      }),
      loggedSeed('age lowers effective importance'),
    );
  });
});

describe('baseImportance: the heuristic when a Task carries no importance', () => {
  const text = 'A full sentence that says something worth keeping.';
  it.each([
    ['metadata.importance wins', memoryTask({ from: 'agent', to: 'worker', text, importance: 0.35 }), 0.35],
    ['a failure', memoryTask({ from: 'worker', to: 'agent', text, status: 'failed' }), 0.8],
    ['a short failure stays high', memoryTask({ from: 'worker', to: 'agent', text: 'timeout', status: 'rejected' }), 0.8],
    ['the user’s requirement', memoryTask({ from: 'user', to: 'agent', text }), 0.7],
    ['a lifecycle notice', memoryTask({ from: 'worker', to: 'agent', action: Actions.spawned, text }), 0.3],
    ['a plan step', memoryTask({ from: 'agent', to: 'agent', action: Actions.planStep, text }), 0.3],
    ['an agent’s answer', memoryTask({ from: 'worker', to: 'agent', status: 'completed', text }), 0.5],
    ['a short acknowledgement', memoryTask({ from: 'user', to: 'agent', text: 'ok, thanks' }), 0.2],
  ])('%s', (_name, task, expected) => {
    expect(baseImportance(task)).toBe(expected);
  });
});

import fc from 'fast-check';
import { type AgentMemory, extractiveHelpers } from '../../src/memory/index.js';
import type { SimulatedClock } from '../../src/simulatedClock.js';

/** One step of a random history of an agent's memory. */
export type Op =
  | { readonly kind: 'observe'; readonly session: number; readonly importance: number | null; readonly sent: boolean; readonly text: string }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'step'; readonly failing: boolean }
  | { readonly kind: 'settle' }
  | { readonly kind: 'retrieve'; readonly picks: readonly number[] };

const words = fc.constantFrom('Lisbon', 'trams', 'are', 'old.', 'The', 'budget', 'is', '900', 'euros.', 'ok', 'Day', 'one:', 'Alfama!', 'why?');

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('observe' as const),
      session: fc.nat(2),
      importance: fc.option(fc.constantFrom(0.1, 0.5, 0.6, 0.7, 0.95), { nil: null }),
      sent: fc.boolean(),
      text: fc.array(words, { minLength: 1, maxLength: 40 }).map((list) => list.join(' ')),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 600_000, 3_600_000, 2 * 86_400_000, 8 * 86_400_000) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('step' as const), failing: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retrieve' as const), picks: fc.uniqueArray(fc.nat(4), { maxLength: 3 }) }) },
);

/** Steps one settling may take: far more than any history here needs, so a compaction that never ends fails instead of hanging. */
const maxSteps = 1_000;

/** Compacts while compaction is due and steps make progress, as the memory compactor does. */
export async function settle(memory: AgentMemory, clock: SimulatedClock): Promise<void> {
  for (let step = 0; memory.compactionDue(clock.now()); step++) {
    if (step === maxSteps) throw new Error(`compaction still due after ${maxSteps} steps that made progress`);
    const report = await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    if (!report.progress) break;
  }
}

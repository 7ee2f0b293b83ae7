import { z } from 'zod';

const unit = z.number().min(0).max(1);

/**
 * How the router scores and decides. The defaults were chosen on the bench's tuning phrasings
 * (scripts/bench/routing.ts), never on the held-out phrasings it reports accuracy on.
 */
export const RouterOptionsSchema = z
  .object({
    /** Which scores decide: both fused (default), or one alone (what the bench compares the hybrid with). */
    mode: z.enum(['hybrid', 'keyword', 'semantic']).default('hybrid'),
    /** How much each field's words count in the keyword score; a field not named counts 1, one at 0 is not read. */
    fieldWeights: z.record(z.string(), z.number().min(0).max(10)).default({ name: 3, description: 2, skills: 1.5, prompt: 1 }),
    /** The fields whose text is embedded for the semantic score, joined in this order. */
    semanticFields: z.array(z.string().min(1)).min(1).default(['name', 'description', 'skills', 'prompt']),
    /** The keyword score's share of the fused score; the semantic score has the rest. */
    keywordWeight: unit.default(0.8),
    /** The least score a candidate needs to be chosen (of the fused score; in a single mode, of that score). */
    threshold: unit.default(0.15),
    /** The keyword fast path: a best keyword score at least `score`, ahead of the next by `margin`, is chosen without the semantic score. */
    fastPath: z.object({ score: unit, margin: unit }).strict().nullable().default({ score: 0.3, margin: 0.05 }),
    /** With a chooser: below `threshold` but at least `floor`, the model picks among the `candidates` best (or none). */
    modelChoice: z
      .object({ floor: unit.default(0.08), candidates: z.number().int().min(2).max(20).default(5) })
      .strict()
      .default({ floor: 0.08, candidates: 5 }),
    /** How many of the best candidates, with their scores, a decision records. */
    recorded: z.number().int().min(1).max(50).default(5),
    /** The longest request text routed; a longer one is refused (`invalid_input`). */
    maxRequestChars: z.number().int().min(1).max(1_000_000).default(4_000),
    /** The most candidates a router is built over; more are refused (`invalid_input`). */
    maxCandidates: z.number().int().min(1).max(1_000_000).default(10_000),
  })
  .strict();

export type RouterOptions = z.input<typeof RouterOptionsSchema>;
export type RouterSettings = z.output<typeof RouterOptionsSchema>;

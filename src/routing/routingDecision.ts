import { z } from 'zod';

/** One candidate as a decision records it: its scores, each in [0, 1]; `semantic` is null when the fast path skipped it. */
export const ScoredCandidateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    keyword: z.number(),
    semantic: z.number().nullable(),
    score: z.number(),
  })
  .strict();

export type ScoredCandidate = z.infer<typeof ScoredCandidateSchema>;

/**
 * Why work went where it went: how the choice was made (`keyword`: the fast path; `hybrid`: the
 * fused score; `model`: the model picked among the best; `exact`: the caller named the role;
 * `none`: nothing was good enough), what was chosen (null when refused), the best candidates
 * with their scores, and a sentence saying why. Plain JSON: it goes into Task metadata as is.
 */
export const RoutingDecisionSchema = z
  .object({
    request: z.string(),
    method: z.enum(['keyword', 'hybrid', 'semantic', 'model', 'exact', 'none']),
    chosen: z.object({ id: z.string(), name: z.string() }).strict().nullable(),
    score: z.number(),
    threshold: z.number(),
    candidates: z.array(ScoredCandidateSchema),
    reason: z.string(),
  })
  .strict();

export type RoutingDecision = z.infer<typeof RoutingDecisionSchema>;

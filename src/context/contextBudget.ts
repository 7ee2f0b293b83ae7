import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';

/**
 * The sources that share what the role prompt and the turn's own steps leave of the budget, in the
 * order unused share flows (see `allocateShares`): the recent exchanges first, the parent's context last.
 */
export const sharedSources = ['recent', 'important', 'summaries', 'retrieval', 'inherited'] as const;

export type SharedSource = (typeof sharedSources)[number];

const share = (fallback: number) => z.number().min(0).max(1).default(fallback);

const SharesSchema = z
  .object({
    /** L1: the recent Tasks of the session. */
    recent: share(0.4),
    /** L2: the important Tasks of the session. */
    important: share(0.2),
    /** L3: summaries of earlier Tasks. */
    summaries: share(0.15),
    /** L4: facts retrieved for the current Task. */
    retrieval: share(0.15),
    /** Context inherited from the parent agent (sub-agents only). */
    inherited: share(0.1),
  })
  .strict()
  .refine((shares) => sharedSources.reduce((sum, name) => sum + shares[name], 0) <= 1 + 1e-9, 'the shares must add up to at most 1');

export const ContextBudgetSchema = z
  .object({
    /**
     * Tokens of the whole request's messages, frames included (tool definitions and the reply are
     * not counted: leave room for them below the model's context window).
     */
    tokens: z.number().int().min(64).max(10_000_000).default(16_000),
    /** Each source's part of what the role prompt and the turn's steps leave; unused parts flow on. */
    shares: SharesSchema.prefault({}),
    /** `contextWarning` warns once the turn's own steps use more than this part of the budget. */
    warnAtTurnShare: z.number().gt(0).max(1).default(0.5),
  })
  .strict();

export type ContextBudgetInput = z.input<typeof ContextBudgetSchema>;
export type ContextBudget = z.infer<typeof ContextBudgetSchema>;

/** The budget with its defaults; a bad value throws a ValidationError naming it (`context.budget.shares.recent: …`). */
export function contextBudget(input: ContextBudgetInput = {}): ContextBudget {
  return parseOrThrow(ContextBudgetSchema, input, 'context.budget');
}

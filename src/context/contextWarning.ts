import type { ContextBudget } from './contextBudget.js';

/**
 * The system message that tells an agent its turn has grown long, or null while it has not: once
 * the turn's own steps (which `assembleContext` always keeps whole) use more than `warnAtTurnShare`
 * of the budget, the memory around them has that much less room, and past the budget they no
 * longer fit at all. Measured in tokens, as `assembleContext` reports them (`report.turnTokens`).
 */
export function contextWarning(turnTokens: number, budget: Pick<ContextBudget, 'tokens' | 'warnAtTurnShare'>): string | null {
  if (turnTokens <= budget.tokens * budget.warnAtTurnShare) return null;
  const percent = Math.round((turnTokens / budget.tokens) * 100);
  return (
    `[warning] This turn's messages take ${turnTokens} tokens, ${percent}% of your context budget of ${budget.tokens}. ` +
    'Call compress_context with a summary of what matters so far to shorten it.'
  );
}

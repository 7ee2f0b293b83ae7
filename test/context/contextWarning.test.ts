import { describe, expect, it } from 'vitest';
import { buildContext, contextBudget, contextWarning } from '../../src/context/index.js';
import type { ChatMessage } from '../../src/task/index.js';

/** A turn of `steps` user messages of about ten tokens each. */
function turnOf(steps: number): ChatMessage[] {
  return Array.from({ length: steps }, (_, i) => ({ role: 'user', content: `step ${i}: a result with a few words` }));
}

describe('contextWarning', () => {
  it("says nothing while the turn's own steps use at most warnAtTurnShare of the budget, then names their tokens and compress_context", () => {
    const budget = contextBudget({ tokens: 1_000, warnAtTurnShare: 0.5 });
    let warned = 0;
    for (let steps = 1; steps <= 60; steps++) {
      const { report } = buildContext({ agentId: 'root', sessionId: 's1', rolePrompt: 'prompt', turn: turnOf(steps) }, budget);
      const warning = contextWarning(report.turnTokens, budget);
      if (report.turnTokens <= 500) {
        expect(warning).toBeNull();
      } else {
        warned++;
        expect(warning).toBe(
          `[warning] This turn's messages take ${report.turnTokens} tokens, ${Math.round(report.turnTokens / 10)}% of your context budget of 1000. ` +
            'Call compress_context with a summary of what matters so far to shorten it.',
        );
      }
    }
    expect(warned).toBeGreaterThan(0);
  });

  it('refuses a warning share outside (0, 1], naming it', () => {
    expect(() => contextBudget({ warnAtTurnShare: 0 })).toThrow(/context\.budget\.warnAtTurnShare/);
    expect(() => contextBudget({ warnAtTurnShare: 1.5 })).toThrow(/context\.budget\.warnAtTurnShare/);
  });
});

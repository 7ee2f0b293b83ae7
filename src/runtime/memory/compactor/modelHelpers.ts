import type { Clock } from '../../../clock.js';
import type { ModelClient } from '../../../llm/index.js';
import type { Logger } from '../../../logger.js';
import { type CompactionHelpers, type HelperBounds, type ModelHelpers, extractiveHelpers, helpersWithFallback } from '../../../memory/index.js';
import { boundedReply } from './boundedReply.js';
import { checkedSummary, factsRequest, parsedFacts, summaryRequest } from './compactionPrompts.js';
import type { CompactorConfig } from '../../config/compactorConfig.js';

/** What the model helpers need besides the model: the memory's bounds, the compactor's, and the clock that times each call. */
export interface ModelHelperDeps {
  /** The bounds of the memory being compacted (its summaryMaxChars, maxFactsPerBatch, factMaxChars). */
  readonly bounds: HelperBounds;
  readonly config: CompactorConfig;
  readonly clock: Clock;
}

/**
 * Memory's `ModelHelpers` over a `ModelClient`: a summary of one session's Tasks for L3, and facts
 * from L3 summaries for L4, each one bounded model call (see boundedReply). A reply that breaks the
 * helper contract (a summary over `summaryMaxChars`, facts that are not the JSON asked for, too
 * many or too long) is refused with a `model_error` saying so, and the fallback takes over.
 */
function modelHelpers(model: ModelClient, deps: ModelHelperDeps): ModelHelpers {
  const { bounds, config, clock } = deps;
  const replyBounds = { timeoutMs: config.compactionModelTimeoutMs, maxReplyChars: config.compactionMaxReplyChars, clock };
  return {
    summarize: async (tasks) => {
      const request = summaryRequest(tasks, {
        summaryMaxChars: bounds.summaryMaxChars,
        maxInputChars: config.compactionMaxInputChars,
        maxTokens: config.compactionSummaryMaxTokens,
      });
      return checkedSummary(await boundedReply(model, request, replyBounds), bounds.summaryMaxChars);
    },
    extractFacts: async (summaries) => {
      const request = factsRequest(summaries, { ...bounds, maxInputChars: config.compactionMaxInputChars, maxTokens: config.compactionFactsMaxTokens });
      return parsedFacts(await boundedReply(model, request, replyBounds), bounds);
    },
  };
}

/**
 * The helpers one compaction uses: with a model, its helpers with the extractive ones as fallback
 * (a failed, timed-out, malformed or oversized reply is logged with why, and the extractive
 * summary or facts are used); with none (an offline runtime), the extractive ones.
 */
export function compactionHelpers(model: ModelClient | null, deps: ModelHelperDeps & { readonly logger: Logger }): CompactionHelpers {
  if (model === null) return extractiveHelpers(deps.bounds);
  return helpersWithFallback(modelHelpers(model, deps), { bounds: deps.bounds, logger: deps.logger });
}

import { z } from 'zod';

/** The longest wait a timer can take (setTimeout's limit, about 24.8 days). */
const maxTimerMs = 2 ** 31 - 1;

/**
 * The memory compactor's settings, flat and named as runtime options are (its `.shape` fits into
 * the runtime's config): how many agents' memories are compacted at once, and the bounds of each
 * model call a compaction makes (a summary for L3, facts for L4). Every model call is bounded three
 * ways: the tokens it may write (sent with the request), the time it may take (an abort on the
 * runtime's clock) and the characters of its reply that are read; one past a bound falls back to
 * the extractive helpers.
 */
export const CompactorConfigSchema = z.object({
  /** Agents whose memories are compacted at once (one batch); the rest wait in the compactor's queue. */
  compactionConcurrency: z.number().int().positive().max(1000).default(2),
  /**
   * How often the compactor looks at every live memory for entries past their tier's age: an idle
   * agent gets no Task that would make its memory due (ms, on the runtime's clock).
   */
  compactionSweepMs: z.number().int().positive().max(maxTimerMs).default(60_000),
  /** Time one compaction model call may take, on the runtime's clock, from asking for a slot to its last chunk. */
  compactionModelTimeoutMs: z.number().int().positive().max(maxTimerMs).default(60_000),
  /** Tokens a summary's reply may have (the request's max tokens): a summary is at most 200 characters, about 50 tokens. */
  compactionSummaryMaxTokens: z.number().int().positive().max(100_000).default(200),
  /** Tokens a fact extraction's reply may have (a few facts of at most 500 characters each). */
  compactionFactsMaxTokens: z.number().int().positive().max(100_000).default(1_000),
  /** Characters of one reply read at most; a longer one is refused (the model ignored its max tokens). */
  compactionMaxReplyChars: z.number().int().positive().max(1_000_000).default(8_000),
  /** Characters of the Tasks or summaries put in one request at most (a Task may be 100,000 characters): the rest is cut. */
  compactionMaxInputChars: z.number().int().positive().max(1_000_000).default(16_000),
});

export type CompactorConfig = z.infer<typeof CompactorConfigSchema>;
export type CompactorConfigInput = z.input<typeof CompactorConfigSchema>;

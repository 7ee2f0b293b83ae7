import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Task } from '../task/index.js';
import type { SummarySource, TaskEntry } from './entries.js';
import { extractiveFacts } from './extractiveFacts.js';
import { extractiveSummary } from './extractiveSummary.js';

/** A summary for L3, and whether a model wrote it or the extractive fallback did. */
export interface SummaryDraft {
  readonly text: string;
  readonly source: SummarySource;
}

/**
 * What `compact` asks of its caller: a summary of L1/L2 entries of one session (for L3), and
 * facts from L3 summaries of one session (for L4). The memory compactor supplies the model
 * here; `extractiveHelpers` need none.
 */
export interface CompactionHelpers {
  summarize(entries: readonly TaskEntry[]): Promise<SummaryDraft>;
  extractFacts(summaries: readonly string[]): Promise<string[]>;
}

/** The bounds the fallbacks write within. */
export interface HelperBounds {
  readonly summaryMaxChars: number;
  readonly maxFactsPerBatch: number;
  readonly factMaxChars: number;
}

/** Helpers that need no model: `extractiveSummary` and `extractiveFacts`. */
export function extractiveHelpers(bounds: HelperBounds): CompactionHelpers {
  return {
    summarize: async (entries) => ({ text: extractiveSummary(tasksOf(entries), bounds.summaryMaxChars), source: 'extractive' }),
    extractFacts: async (summaries) => extractiveFacts(summaries, { maxFacts: bounds.maxFactsPerBatch, maxChars: bounds.factMaxChars }),
  };
}

/** A model's side of the helpers, as the memory compactor binds them (the memory layer does not know models). */
export interface ModelHelpers {
  summarize(tasks: readonly Task[]): Promise<string>;
  extractFacts(summaries: readonly string[]): Promise<string[]>;
}

/**
 * Helpers that ask the model first and fall back to the extractive ones when it fails (offline,
 * an error, an empty answer), with a warning naming what failed. The memory layer never calls a
 * model itself: `model` closes over one.
 */
export function helpersWithFallback(model: ModelHelpers, deps: { readonly bounds: HelperBounds; readonly logger: Logger }): CompactionHelpers {
  const fallback = extractiveHelpers(deps.bounds);
  return {
    summarize: async (entries) => {
      try {
        const text = (await model.summarize(tasksOf(entries))).trim();
        if (text !== '') return { text, source: 'model' };
        deps.logger.warn({ entries: entries.length }, 'the model gave an empty summary; the extractive one is used');
      } catch (error) {
        deps.logger.warn({ entries: entries.length, error: describeError(error) }, 'the model could not summarise; the extractive summary is used');
      }
      return fallback.summarize(entries);
    },
    extractFacts: async (summaries) => {
      try {
        const facts = (await model.extractFacts(summaries)).map((fact) => fact.trim()).filter((fact) => fact !== '');
        if (facts.length > 0) return facts;
        deps.logger.warn({ summaries: summaries.length }, 'the model extracted no fact; the extractive facts are used');
      } catch (error) {
        deps.logger.warn({ summaries: summaries.length, error: describeError(error) }, 'the model could not extract facts; the extractive ones are used');
      }
      return fallback.extractFacts(summaries);
    },
  };
}

function tasksOf(entries: readonly TaskEntry[]): Task[] {
  return entries.map((entry) => entry.task);
}

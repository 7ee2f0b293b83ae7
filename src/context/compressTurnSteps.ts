import type { ChatMessage } from '../task/index.js';

/** What a compression did: `removed` earlier messages were replaced by the summary; `kept` recent ones stayed verbatim. */
export interface CompressionResult {
  readonly removed: number;
  readonly kept: number;
}

export interface CompressedSteps extends CompressionResult {
  readonly messages: ChatMessage[];
}

/** Opens the system message that carries a `compress_context` summary. */
export const summaryHeader = '[summary of earlier conversation]';

/**
 * Replaces all but the recent end of a turn's steps with a summary (what `compress_context` does).
 * The result is `[summary message, ...window, ...inFlight]` where:
 *
 * - `inFlight` is the last step when it is an assistant message with tool calls: the step being
 *   acted on right now (the one calling `compress_context`), whose results are appended after this
 *   returns. It is always kept and does not count towards `keepRecent`.
 * - `window` is the last `keepRecent` of the steps before `inFlight`, except that it never starts
 *   with a tool result: when it would, it extends back to the assistant message that made the call
 *   (over that call's sibling results), because a provider rejects a tool message whose assistant
 *   message is gone. So it holds at least `keepRecent` steps (or all there are), and more only by
 *   that one step's call and its earlier results.
 * - Tool results with no assistant message before them at all (only in malformed input) are dropped.
 */
export function compressTurnSteps(steps: readonly ChatMessage[], summary: string, keepRecent: number): CompressedSteps {
  const last = steps.at(-1);
  const inFlight = last?.role === 'assistant' && last.toolCalls.length > 0 ? [last] : [];
  const history = steps.slice(0, steps.length - inFlight.length);

  let start = Math.max(0, history.length - Math.max(0, Math.floor(keepRecent)));
  while (start > 0 && history[start]?.role === 'tool') start--;
  while (history[start]?.role === 'tool') start++;

  const window = history.slice(start);
  return {
    messages: [{ role: 'system', content: `${summaryHeader}\n${summary}` }, ...window, ...inFlight],
    removed: start,
    kept: window.length + inFlight.length,
  };
}

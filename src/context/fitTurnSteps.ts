import type { ChatMessage } from '../task/index.js';
import { compressTurnSteps, summaryHeader } from './compressTurnSteps.js';
import { type TokenCounter, frameOf, replyPrimingTokens, sharedTokenCounter } from './tokenCounter.js';

/** Characters of the summary that stands for the steps an automatic compaction took out. */
const maxSummaryChars = 1_200;
/** Characters of a tool result's end the summary quotes. */
const resultQuoteChars = 80;
/** Marks a message cut to fit the budget. */
export const cutMark = ' […cut to fit the context budget]';

export interface FittedTurn {
  /** The turn's steps now: its prompt, a summary of the steps taken out, the newest verbatim. */
  readonly steps: ChatMessage[];
  /** Steps the summary stands for, and those kept verbatim after it. */
  readonly removed: number;
  readonly kept: number;
  /** A message (the prompt, or a single step) was still over on its own, and was cut. */
  readonly cut: boolean;
}

/**
 * A turn's steps made to fit when they are over `room` tokens (null when they are not): the
 * prompt (its first step) stays, the older steps are replaced by an extractive summary of them
 * (which tools were called, how often, and how their last results ended), and as many of the
 * newest steps stay verbatim as fit in `target` (at most `room`: room left for the next steps,
 * so a long loop is not compacted again at every step), never a tool result without the call
 * before it. When even the prompt and the summary alone are over `room`, the longest message
 * left is cut to fit, marked so. No model call: this runs before each model call.
 */
export function fitTurnSteps(steps: readonly ChatMessage[], room: number, target = room, counter: TokenCounter = sharedTokenCounter): FittedTurn | null {
  if (counter.messages(steps) <= room) return null;
  const [first, ...rest] = steps;
  const prompt = first?.role === 'user' ? [first] : [];
  const body = prompt.length === 0 ? steps : rest;
  for (const limit of [Math.min(target, room), room]) {
    for (let keep = body.length - 1; keep >= 0; keep--) {
      const compressed = compressTurnSteps(body, '', keep);
      // The summary stands for exactly what the compression took out (its window may reach back over a call's results).
      const summary: ChatMessage = { role: 'system', content: `${summaryHeader}\n${summaryOf(body.slice(0, compressed.removed))}` };
      const fitted = [...prompt, summary, ...compressed.messages.slice(1)];
      if (counter.messages(fitted) <= limit) return { steps: fitted, removed: compressed.removed, kept: compressed.kept + prompt.length, cut: false };
    }
  }
  const bare = [...prompt, ...compressTurnSteps(body, summaryOf(body), 0).messages];
  return { steps: cutToFit(bare, room, counter), removed: body.length, kept: prompt.length, cut: true };
}

/** What the steps taken out did: the tools called (with how often) and the end of each tool's last result, within `maxSummaryChars`. */
function summaryOf(removed: readonly ChatMessage[]): string {
  const calls = new Map<string, number>();
  const lastResult = new Map<string, string>();
  let said = '';
  for (const step of removed) {
    if (step.role === 'assistant') {
      for (const call of step.toolCalls) calls.set(call.name, (calls.get(call.name) ?? 0) + 1);
      if (step.content.trim() !== '') said = step.content.trim();
    } else if (step.role === 'tool') lastResult.set(step.name, step.content);
  }
  const lines = [`${removed.length} earlier steps of this turn were taken out to fit the context budget.`];
  if (calls.size > 0) lines.push(`Tools called: ${[...calls].map(([name, count]) => `${name} ×${count}`).join(', ')}.`);
  for (const [name, content] of lastResult) lines.push(`Last ${name} result ended: …${content.slice(-resultQuoteChars)}`);
  if (said !== '') lines.push(`Last thing you said: ${said.slice(0, resultQuoteChars * 2)}`);
  const text = lines.join('\n');
  return text.length <= maxSummaryChars ? text : `${text.slice(0, maxSummaryChars - 1)}…`;
}

/** `messages` with the longest one's content cut (its start kept) until they fit `room`; a frame alone always fits. */
function cutToFit(messages: ChatMessage[], room: number, counter: TokenCounter): ChatMessage[] {
  const fitted = [...messages];
  for (let over = counter.messages(fitted) - room; over > 0; over = counter.messages(fitted) - room) {
    let longest = 0;
    fitted.forEach((message, i) => {
      if (message.content.length > (fitted[longest]?.content.length ?? 0)) longest = i;
    });
    const message = fitted[longest] as ChatMessage;
    if (message.content.length === 0) break;
    // Tokens are at least a character each: cutting `over` tokens' worth of characters and more converges.
    const keep = Math.max(0, message.content.length - Math.max(over * 4, cutMark.length + 1) - cutMark.length);
    fitted[longest] = { ...message, content: `${message.content.slice(0, keep)}${keep === 0 ? '' : cutMark}` };
  }
  return fitted;
}

/** Tokens a turn's steps may take in a request: the budget less the role prompt, its frame and the reply's priming. */
export function roomForTurn(budgetTokens: number, rolePrompt: string, counter: TokenCounter = sharedTokenCounter): number {
  return budgetTokens - replyPrimingTokens - frameOf('system') - counter.text(rolePrompt);
}

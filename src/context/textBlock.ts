import type { ChatMessage } from '../task/index.js';
import { type Fitted, nothingFitted } from './fitted.js';
import { type TokenCounter, frameOf } from './tokenCounter.js';

/**
 * A source shown as one system message: a header line, then one line per item (facts, summaries,
 * the parent's messages), fewer when they do not all fit.
 *
 * Every piece of the message (the header, the note of what was left out, each line) ends in a
 * newline and starts with a character that is not blank, so no token of o200k_base spans two pieces
 * (its pre-tokenizer ends a run of newlines before any other character, and starts no word or
 * punctuation run with a newline): the message's tokens are the sum of its pieces' tokens, each
 * counted once and cached. `test/context/tokenCounter.test.ts` checks that sum against the real count.
 */
export interface TextBlock {
  readonly header: string;
  /** How many items there are. */
  readonly count: number;
  /** Item `index`'s line, in the order they are shown; it must start with a character that is not blank. Made only for lines walked. */
  readonly line: (index: number) => string;
  /** Which end survives when not all fit: the first lines (most relevant) or the last (newest). */
  readonly keep: 'first' | 'last';
  /** The line after the header that says how many were left out; null to leave them out silently (the report still counts them). */
  readonly leftOutLine: ((count: number) => string) | null;
}

/** `block` in at most `allotment` tokens, as one system message, or nothing when not even one line fits. */
export function fitTextBlock(block: TextBlock, allotment: number, counter: TokenCounter): Fitted {
  const { count: total, keep } = block;
  if (total === 0) return nothingFitted(0);
  // The k-th line walked: from the end that survives, inwards.
  const at = (k: number): string => block.line(keep === 'last' ? total - 1 - k : k);

  let used = frameOf('system') + counter.text(`${block.header}\n`);
  const costs: number[] = [];
  while (costs.length < total) {
    const cost = counter.text(`${at(costs.length)}\n`);
    if (used + cost > allotment) break;
    used += cost;
    costs.push(cost);
  }

  let note = '';
  if (costs.length < total && block.leftOutLine !== null) {
    // The note takes the room of as many of the kept lines nearest the cut as it needs.
    for (;;) {
      note = `${block.leftOutLine(total - costs.length)}\n`;
      if (used + counter.text(note) <= allotment || costs.length === 0) break;
      used -= costs.pop() ?? 0;
    }
    if (used + counter.text(note) <= allotment) used += counter.text(note);
    else note = '';
  }
  const kept = costs.length;
  if (kept === 0) return nothingFitted(total);

  const first = keep === 'last' ? total - kept : 0;
  const shown: string[] = [];
  for (let i = first; i < first + kept; i++) shown.push(`${block.line(i)}\n`);
  const message: ChatMessage = { role: 'system', content: `${block.header}\n${note}${shown.join('')}` };
  return { messages: [message], tokens: used, kept, leftOut: total - kept };
}

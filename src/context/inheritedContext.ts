import type { ChatMessage } from '../task/index.js';
import { type Fitted, nothingFitted } from './fitted.js';
import { o200k } from './o200k.js';
import { fitTextBlock } from './textBlock.js';
import { type TokenCounter, frameOf, textTokens } from './tokenCounter.js';

const header = '[context from the agent that delegated this task to you]';
const cutNote = '\n[… the rest was cut to fit the context budget]';

/** One of the parent's messages as a line of the block: its role, then what it said (and called). */
function asLine(message: ChatMessage): string {
  switch (message.role) {
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `${call.name}(${call.arguments})`).join(', ');
      return calls === '' ? `assistant: ${message.content}` : `assistant: ${message.content} [called ${calls}]`;
    }
    case 'tool':
      return `tool ${message.name}: ${message.content}`;
    case 'system':
    case 'user':
      return `${message.role}: ${message.content}`;
  }
}

/**
 * The parent's context as one system message. Its messages become lines (`user: …`, `assistant: …
 * [called f(…)]`, `tool f: …`), the newest kept, so nothing here is a tool message that could be
 * parted from its call. A text is kept from its start, cut at a token boundary when it does not fit.
 */
export function fitInherited(inherited: string | readonly ChatMessage[] | null | undefined, allotment: number, counter: TokenCounter): Fitted {
  if (inherited === null || inherited === undefined || inherited.length === 0) return nothingFitted(0);
  if (typeof inherited !== 'string') {
    const leftOutLine = (count: number): string => `[${count} earlier messages of the parent's context left out]`;
    return fitTextBlock({ header, count: inherited.length, line: (i) => asLine(inherited[i] as ChatMessage), keep: 'last', leftOutLine }, allotment, counter);
  }
  const whole = `${header}\n${inherited}`;
  const wholeTokens = frameOf('system') + counter.text(whole);
  if (wholeTokens <= allotment) return { messages: [{ role: 'system', content: whole }], tokens: wholeTokens, kept: 1, leftOut: 0 };
  return cutToFit(inherited, allotment);
}

/** The start of `text` that fits with the header and the cut note, or nothing when no token of it does. */
function cutToFit(text: string, allotment: number): Fitted {
  const frame = frameOf('system') + textTokens(`${header}\n`) + textTokens(cutNote);
  const { encode, decode } = o200k();
  const tokens = encode(text, { disallowedSpecial: new Set() });
  let keep = allotment - frame;
  // Decoding a prefix and counting it again may not give back exactly `keep` tokens (a character
  // split across tokens, a merge at the new end): shrink until the real count fits.
  while (keep > 0) {
    const content = `${header}\n${decode(tokens.slice(0, keep))}${cutNote}`;
    const cost = frameOf('system') + textTokens(content);
    if (cost <= allotment) return { messages: [{ role: 'system', content }], tokens: cost, kept: 1, leftOut: 0, cut: true };
    keep -= Math.max(1, cost - allotment);
  }
  return nothingFitted(1);
}

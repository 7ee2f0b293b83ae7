import type { ChatMessage } from '../task/index.js';

/** What one source put into the context within the tokens it was allotted. */
export interface Fitted {
  readonly messages: readonly ChatMessage[];
  /** Tokens of `messages`, frames included. */
  readonly tokens: number;
  /** Items shown (Tasks, lines), and items left out for want of room. */
  readonly kept: number;
  readonly leftOut: number;
  /** A text shown only in part (the parent's context given as text, cut to fit). */
  readonly cut?: boolean;
}

/** A source that shows nothing: it had nothing, or no room for anything. */
export function nothingFitted(leftOut: number): Fitted {
  return { messages: [], tokens: 0, kept: 0, leftOut };
}

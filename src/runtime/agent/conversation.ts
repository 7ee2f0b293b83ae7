import { TroupeError } from '../../errors.js';
import type { ChatMessage } from '../../task/index.js';
import { type ConversationSink, keepNothing } from '../journal/journal.js';

/** What a compression did: `removed` earlier messages were replaced by the summary; `kept` recent ones stayed verbatim. */
export interface CompressionResult {
  readonly removed: number;
  readonly kept: number;
}

export interface CompressedMessages extends CompressionResult {
  readonly messages: ChatMessage[];
}

/** Opens the system message that carries a `compress_context` summary. */
export const summaryHeader = '[summary of earlier conversation]';

/** The system message a conversation gets when it passes its maximum length. */
export function lengthWarning(messages: number, max: number): string {
  return `[warning] Your conversation has ${messages} messages (max ${max}). ` + 'Call compress_context with a summary of what matters so far to shorten it.';
}

/**
 * Replaces all but the recent end of a conversation with a summary. The result is
 * `[system prompt, summary message, ...window, ...inFlight]` where:
 *
 * - `inFlight` is the last message when it is an assistant message with tool calls: the step
 *   being acted on right now (the one calling `compress_context`), whose results are appended
 *   after this returns. It is always kept and does not count towards `keepRecent`.
 * - `window` is the last `keepRecent` of the messages between the system prompt and `inFlight`,
 *   except that it never starts with a tool result: when it would, it extends back to the
 *   assistant message that made the call (over that call's sibling results), because a provider
 *   rejects a tool message whose assistant message is gone. So it holds at least `keepRecent`
 *   messages (or all there are), and more only by that one step's call and its earlier results.
 * - Tool results with no assistant message before them at all (only in malformed input) are dropped.
 */
export function compressMessages(messages: readonly ChatMessage[], summary: string, keepRecent: number): CompressedMessages {
  const [system, ...body] = messages;
  if (system === undefined) throw new TroupeError('invalid_input', 'an empty conversation has no system prompt to keep');
  const last = body.at(-1);
  const inFlight = last?.role === 'assistant' && last.toolCalls.length > 0 ? [last] : [];
  const history = body.slice(0, body.length - inFlight.length);

  let start = Math.max(0, history.length - Math.max(0, Math.floor(keepRecent)));
  while (start > 0 && history[start]?.role === 'tool') start--;
  while (history[start]?.role === 'tool') start++;

  const window = history.slice(start);
  return {
    messages: [system, { role: 'system', content: `${summaryHeader}\n${summary}` }, ...window, ...inFlight],
    removed: start,
    kept: window.length + inFlight.length,
  };
}

/** One agent's conversation with its model: the system prompt first, then appended steps. */
export class Conversation {
  #messages: ChatMessage[];
  #snapshot: readonly ChatMessage[] | undefined;
  readonly #sink: ConversationSink;

  /** A new conversation starting with `systemPrompt`, or (given messages) one restored as it was; `sink` keeps it. */
  constructor(start: string | readonly ChatMessage[], sink: ConversationSink = keepNothing) {
    this.#sink = sink;
    if (typeof start === 'string') {
      const system: ChatMessage = { role: 'system', content: start };
      this.#messages = [system];
      // The sink may write later (a journal holds writes to commit them together): never hand it an array that grows.
      sink.appended([system]);
    } else {
      this.#messages = [...start];
    }
  }

  /**
   * The messages as they are now. A snapshot, not a view: a model client (or a test's
   * ScriptedModel) may keep the request it was given, and later steps must not change it.
   */
  get messages(): readonly ChatMessage[] {
    this.#snapshot ??= Object.freeze([...this.#messages]);
    return this.#snapshot;
  }

  get length(): number {
    return this.#messages.length;
  }

  append(...messages: ChatMessage[]): void {
    this.#messages.push(...messages);
    this.#snapshot = undefined;
    this.#sink.appended(messages);
  }

  /** Keeps the system prompt, a summary and the recent end (see `compressMessages`). */
  compress(summary: string, keepRecent: number): CompressionResult {
    const { messages, removed, kept } = compressMessages(this.#messages, summary, keepRecent);
    this.#messages = messages;
    this.#snapshot = undefined;
    this.#sink.replaced([...messages]);
    return { removed, kept };
  }

  /** Whether the conversation is longer than `max` messages, so the agent should be told to compress it. */
  needsWarning(max: number): boolean {
    return this.#messages.length > max;
  }
}

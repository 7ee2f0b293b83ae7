import { type CompressionResult, compressTurnSteps, summaryHeader } from '../../context/compressTurnSteps.js';
import { TroupeError } from '../../errors.js';
import type { ChatMessage } from '../../task/index.js';
import { type ConversationSink, keepNothing } from '../journal/journal.js';

export interface CompressedMessages extends CompressionResult {
  readonly messages: ChatMessage[];
}

// `compress_context` works through the context builder's rules: one implementation of them.
export { summaryHeader };

/** The system message a conversation gets when it passes its maximum length. */
export function lengthWarning(messages: number, max: number): string {
  return `[warning] Your conversation has ${messages} messages (max ${max}). ` + 'Call compress_context with a summary of what matters so far to shorten it.';
}

/** Keeps the system prompt, then compresses the steps after it (see `compressTurnSteps`). */
export function compressMessages(messages: readonly ChatMessage[], summary: string, keepRecent: number): CompressedMessages {
  const [system, ...body] = messages;
  if (system === undefined) throw new TroupeError('invalid_input', 'an empty conversation has no system prompt to keep');
  const compressed = compressTurnSteps(body, summary, keepRecent);
  return { ...compressed, messages: [system, ...compressed.messages] };
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

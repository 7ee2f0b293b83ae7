import { z } from 'zod';
import type { ChatMessage } from '../task/index.js';
import { parseOrThrow } from '../task/index.js';
import { o200k } from './o200k.js';

/**
 * Counts tokens as OpenAI's chat models do (o200k_base, the encoding of gpt-4o, gpt-4.1, o-series
 * and gpt-5), with caches so that a context built every turn from the same memory tokenises each
 * Task, message and line once.
 *
 * A message costs its content plus the chat format's frame, `<|im_start|>role<|im_sep|>…<|im_end|>`:
 * 3 tokens and the role's one. A request adds 3 for the reply's own frame. For plain messages this
 * is exactly what `encodeChat(messages, 'gpt-4o')` produces (a test checks it). Tool calls are an
 * estimate, as gpt-tokenizer's own `countChatCompletionTokens` makes one: a call costs its name,
 * its arguments and 3; a tool result its content, its name and 1. Text that looks like a special
 * token (`<|endoftext|>`) counts as the plain text a provider sees.
 */

/** `<|im_start|>`, `<|im_sep|>` and `<|im_end|>` around every message. */
const frameTokens = 3;
/** The reply's `<|im_start|>assistant<|im_sep|>`, counted once per request. */
export const replyPrimingTokens = 3;
const toolCallTokens = 3;
const toolNameTokens = 1;

const plainText = { disallowedSpecial: new Set<string>() };
/** Parts of a message this short are counted by value, once (`TokenCounter.#part`). */
const shortPartChars = 64;

export const TokenCounterOptionsSchema = z
  .object({
    /** Characters of text whose token counts are kept (lines of summaries, facts, notes); the oldest go first. */
    maxCachedChars: z.number().int().nonnegative().default(2_000_000),
  })
  .strict();

export type TokenCounterOptions = z.input<typeof TokenCounterOptionsSchema>;

/** Tokens of `text` with no cache: the tokenizer itself. */
export function textTokens(text: string): number {
  return text === '' ? 0 : o200k().countTokens(text, plainText);
}

/** Tokens of each role's name, counted on the first frame asked for (the tokenizer loads on first use). */
let roleTokens: Readonly<Record<ChatMessage['role'], number>> | undefined;

/** The frame of one message of `role`, without its content. */
export function frameOf(role: ChatMessage['role']): number {
  roleTokens ??= { system: textTokens('system'), user: textTokens('user'), assistant: textTokens('assistant'), tool: textTokens('tool') };
  return frameTokens + roleTokens[role];
}

/**
 * Token counts, cached. Messages and other objects are cached by identity (a WeakMap: a frozen Task
 * or a conversation's step is counted once for as long as it lives); text by value, up to
 * `maxCachedChars` characters, oldest out first.
 */
export class TokenCounter {
  readonly #texts = new Map<string, number>();
  readonly #messages = new WeakMap<object, number>();
  readonly #maxCachedChars: number;
  #cachedChars = 0;

  constructor(options: TokenCounterOptions = {}) {
    this.#maxCachedChars = parseOrThrow(TokenCounterOptionsSchema, options, 'tokenCounter').maxCachedChars;
  }

  /** Characters of text whose counts are cached now (at most `maxCachedChars`). */
  get cachedChars(): number {
    return this.#cachedChars;
  }

  /** Tokens of a piece of text. */
  text(text: string): number {
    const cached = this.#texts.get(text);
    if (cached !== undefined) return cached;
    const tokens = textTokens(text);
    if (text.length <= this.#maxCachedChars) {
      while (this.#cachedChars + text.length > this.#maxCachedChars) this.#evictOldest();
      this.#texts.set(text, tokens);
      this.#cachedChars += text.length;
    }
    return tokens;
  }

  /** Tokens of one message in a request: frame, content, tool calls. */
  message(message: ChatMessage): number {
    const cached = this.#messages.get(message);
    if (cached !== undefined) return cached;
    let tokens = frameOf(message.role) + this.#part(message.content);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) tokens += this.#part(call.name) + this.#part(call.arguments) + toolCallTokens;
    } else if (message.role === 'tool') {
      tokens += this.#part(message.name) + toolNameTokens;
    }
    this.#messages.set(message, tokens);
    return tokens;
  }

  /** Tokens of `messages`, each with its frame. */
  messages(messages: readonly ChatMessage[]): number {
    let tokens = 0;
    for (const message of messages) tokens += this.message(message);
    return tokens;
  }

  /** Tokens of a whole request made of `messages`. */
  request(messages: readonly ChatMessage[]): number {
    return replyPrimingTokens + this.messages(messages);
  }

  /**
   * A part of a new message. Short parts recur (tool names, small arguments and results) and cost the
   * tokenizer's fixed overhead per call more than their length, so they are counted once by value;
   * long ones are seldom seen twice and would only push useful lines out of the cache.
   */
  #part(text: string): number {
    return text.length <= shortPartChars ? this.text(text) : textTokens(text);
  }

  #evictOldest(): void {
    const oldest = this.#texts.keys().next();
    if (oldest.done === true) return;
    this.#cachedChars -= oldest.value.length;
    this.#texts.delete(oldest.value);
  }
}

/** The counter `assembleContext` uses unless given its own. */
export const sharedTokenCounter = new TokenCounter();

import { type Hash, createHash } from 'node:crypto';
import type { ChatRequest, ToolDefinition } from '../llm/index.js';
import type { Redactor } from '../task/index.js';
import { canonicalJson, digestOf, redactedCanonicalJson } from './canonical.js';

/** A model request as a recording keys it: its digest, and its parts as canonical JSON (messages redacted). */
export interface RequestKey {
  readonly digest: string;
  readonly model: string;
  readonly tools: { readonly digest: string; readonly names: readonly string[] };
  /** Each message as canonical JSON, redacted. */
  readonly messages: readonly string[];
}

/**
 * Makes the key of each model request: the digest of its model name, its tool definitions and its
 * messages, redacted by the runtime's redactor, so a run and its replay (where a secret reads
 * `[REDACTED]`) give the same key. A turn sends its earlier messages again with every request: each
 * message and each tool list is made canonical once, and remembered for as long as it is in use.
 */
export class RequestKeys {
  readonly #redactor: Redactor;
  readonly #messages = new WeakMap<object, string>();
  readonly #tools = new WeakMap<readonly ToolDefinition[], RequestKey['tools']>();
  /**
   * By the last message of a request: the request's digest text up to that message (its head and
   * messages), and the hash of that text so far. The next request of a turn sends those messages
   * again and a few more: its digest goes on from there.
   */
  readonly #hashed = new WeakMap<object, { readonly head: string; readonly messages: readonly string[]; readonly hash: Hash }>();

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  key(request: ChatRequest, clientName: string): RequestKey {
    const model = request.model ?? clientName;
    const tools = this.#toolsOf(request.tools);
    const messages = request.messages.map((message) => {
      let text = this.#messages.get(message);
      if (text === undefined) {
        text = redactedCanonicalJson(message, this.#redactor, 'value');
        this.#messages.set(message, text);
      }
      return text;
    });
    return { digest: this.#digest(`${JSON.stringify(model)}\n${tools.digest}\n`, request.messages, messages), model, tools, messages };
  }

  /** The SHA-256 of `head` and `messages` one a line, hashing only what follows the longest earlier request of the same head it starts with. */
  #digest(head: string, sent: readonly object[], messages: readonly string[]): string {
    let hash: Hash | undefined;
    let from = 0;
    // The request before in a turn ends a message or two earlier (the reply and the tool results).
    for (let last = messages.length - 1; last >= Math.max(messages.length - 4, 0) && hash === undefined; last--) {
      const earlier = this.#hashed.get(sent[last] as object);
      if (earlier !== undefined && earlier.head === head && earlier.messages.length === last + 1 && earlier.messages.every((text, i) => text === messages[i])) {
        hash = earlier.hash.copy();
        from = last + 1;
      }
    }
    hash ??= createHash('sha256').update(head);
    const lastSent = sent[messages.length - 1];
    if (lastSent !== undefined && from < messages.length) {
      const rest = messages.slice(from).join('\n');
      hash.update(from === 0 ? rest : `\n${rest}`);
      this.#hashed.set(lastSent, { head, messages, hash: hash.copy() });
    }
    return hash.digest('hex');
  }

  #toolsOf(definitions: readonly ToolDefinition[]): RequestKey['tools'] {
    let tools = this.#tools.get(definitions);
    if (tools === undefined) {
      tools = { digest: digestOf(canonicalJson(definitions)), names: definitions.map((definition) => definition.name) };
      this.#tools.set(definitions, tools);
    }
    return tools;
  }
}

/**
 * The key as stored in a `model` record (JSON text), built from its canonical parts without parsing
 * them again: each message as the number `messageRef` gives it (which writes a message the first time).
 */
export function storedRequestJson(key: RequestKey, messageRef: (message: string) => number): string {
  return `{"model":${JSON.stringify(key.model)},"tools":${JSON.stringify(key.tools)},"messages":[${key.messages.map(messageRef).join(',')}]}`;
}

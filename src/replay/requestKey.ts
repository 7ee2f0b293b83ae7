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

/** A request's digest text (its head and messages) and the hash of it so far. */
interface HashedRequest {
  readonly head: string;
  readonly messages: readonly string[];
  readonly hash: Hash;
}

/** Requests whose hashes are kept for the next request of their turn to go on from. */
const recentRequests = 8;

/** Whether two messages have the same fields, each the same value (a nested object the same object: messages are not changed once made). */
function sameFields(message: object, other: object): boolean {
  const keys = Object.keys(message);
  if (keys.length !== Object.keys(other).length) return false;
  return keys.every((key) => Object.hasOwn(other, key) && (message as Record<string, unknown>)[key] === (other as Record<string, unknown>)[key]);
}

/** Whether `texts` starts with every one of `start`, in order. */
function startsWith(texts: readonly string[], start: readonly string[]): boolean {
  if (start.length > texts.length) return false;
  for (let i = 0; i < start.length; i++) if (texts[i] !== start[i]) return false;
  return true;
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
   * The latest requests' digest texts (their head and messages) and the hash of each so far, the
   * most recent last: the next request of a turn sends one of them again and a few messages more,
   * and its digest goes on from there. A few, for the turns of agents running side by side.
   */
  readonly #recent: HashedRequest[] = [];
  /** The latest request's messages and their texts, by place: a message made again alike (a system message rebuilt for every request) takes its text. */
  #last: { readonly sent: readonly object[]; readonly texts: readonly string[] } = { sent: [], texts: [] };

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  key(request: ChatRequest, clientName: string): RequestKey {
    const model = request.model ?? clientName;
    const tools = this.#toolsOf(request.tools);
    const last = this.#last;
    const messages = request.messages.map((message, i) => {
      let text = this.#messages.get(message);
      if (text === undefined) {
        const before = last.sent[i];
        const alike = before !== undefined && sameFields(message, before) ? last.texts[i] : undefined;
        text = alike ?? redactedCanonicalJson(message, this.#redactor, 'value');
        this.#messages.set(message, text);
      }
      return text;
    });
    this.#last = { sent: [...request.messages], texts: messages };
    return { digest: this.#digest(`${JSON.stringify(model)}\n${tools.digest}\n`, messages), model, tools, messages };
  }

  /** The SHA-256 of `head` and `messages` one a line, hashing only what follows the longest recent request it starts with. */
  #digest(head: string, messages: readonly string[]): string {
    let earlier: HashedRequest | undefined;
    for (const recent of this.#recent) {
      if (recent.head === head && recent.messages.length >= (earlier?.messages.length ?? 0) && startsWith(messages, recent.messages)) earlier = recent;
    }
    // The request it goes on from is done with: its hash goes on as this one's.
    if (earlier !== undefined) this.#recent.splice(this.#recent.indexOf(earlier), 1);
    const from = earlier?.messages.length ?? 0;
    const hash = earlier?.hash ?? createHash('sha256').update(head);
    if (from < messages.length) hash.update(`${from === 0 ? '' : '\n'}${messages.slice(from).join('\n')}`);
    this.#recent.push({ head, messages, hash });
    if (this.#recent.length > recentRequests) this.#recent.shift();
    return hash.copy().digest('hex');
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
 * them again: each message as its number in the recording (`refs`, one a message).
 */
export function storedRequestJson(key: RequestKey, refs: readonly number[]): string {
  return `{"model":${JSON.stringify(key.model)},"tools":${JSON.stringify(key.tools)},"messages":[${refs.join(',')}]}`;
}

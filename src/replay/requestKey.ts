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
    return { digest: digestOf(`${JSON.stringify(model)}\n${tools.digest}\n${messages.join('\n')}`), model, tools, messages };
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

import type { ChatMessage } from '../llm/index.js';

/** One agent's conversation with its model: the system prompt first, then appended steps. */
export class Conversation {
  #messages: ChatMessage[];

  constructor(systemPrompt: string) {
    this.#messages = [{ role: 'system', content: systemPrompt }];
  }

  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  get length(): number {
    return this.#messages.length;
  }

  append(...messages: ChatMessage[]): void {
    this.#messages.push(...messages);
  }

  /** Drops everything, system prompt included: the agent is gone. */
  clear(): void {
    this.#messages = [];
  }
}

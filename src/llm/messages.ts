import type { ChatMessage, ToolDefinition } from '../task/index.js';

export { type AssistantMessage, type ChatMessage, type ToolCall, type ToolDefinition } from '../task/index.js';

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** Provider model name; the client's default when absent. */
  readonly model?: string;
  /** Tokens the reply may have at most (sent as `max_completion_tokens`); the provider's default when absent. */
  readonly maxTokens?: number;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** OpenAI streams token usage in a last chunk of its own: its finish delta has this reason, and the reply keeps the one before. */
export const usageOnlyReason = 'usage';

/** One piece of a streamed reply, shaped like OpenAI's chat-completion chunks. */
export type ChatDelta =
  | { readonly type: 'text'; readonly text: string }
  /** A fragment of tool call `index`: the first carries id and name, later ones more arguments. */
  | { readonly type: 'tool_call'; readonly index: number; readonly id?: string; readonly name?: string; readonly arguments?: string }
  /** The reply is complete; a finish whose reason is `usageOnlyReason` only reports token usage, sent after the real one. */
  /** `model`: the model the provider says answered (it may differ from the one asked for). */
  | { readonly type: 'finish'; readonly reason: string; readonly usage?: TokenUsage; readonly model?: string }
  /** The stream failed and is being retried from the start: drop what arrived so far. */
  | { readonly type: 'restart'; readonly attempt: number };

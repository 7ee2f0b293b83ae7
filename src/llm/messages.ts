import { z } from 'zod';

/** A tool call as the model wrote it; `arguments` is the model's raw JSON text. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCallSchema) }),
  z.object({ role: z.literal('tool'), toolCallId: z.string().min(1), name: z.string(), content: z.string() }),
]);

/** What a model sees of a tool: the JSON Schema comes from the tool's zod schema. */
export const ToolDefinitionSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

export type ToolCall = z.infer<typeof ToolCallSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** Provider model name; the client's default when absent. */
  readonly model?: string;
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
  | { readonly type: 'finish'; readonly reason: string; readonly usage?: TokenUsage }
  /** The stream failed and is being retried from the start: drop what arrived so far. */
  | { readonly type: 'restart'; readonly attempt: number };

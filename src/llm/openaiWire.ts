import type { ChatCompletionChunk, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { type ChatDelta, type ChatMessage, type ChatRequest, type ToolDefinition, usageOnlyReason } from './messages.js';

/*
 * The mapping between troupe's chat messages and OpenAI's chat-completions wire format, in one
 * place: the OpenAI-compatible client speaks it outward, the local test server reads it back.
 */

// A conversation is resent whole on every call while only its tail is new, so the wire form of
// the last request of each conversation (found by its first message) is kept and extended.
// Only frozen arrays (Conversation hands out frozen snapshots) are remembered: their elements
// cannot be swapped afterwards, so comparing them one by one proves the prefix unchanged.
const lastRequestOf = new WeakMap<ChatMessage, { readonly source: readonly ChatMessage[]; readonly wire: readonly ChatCompletionMessageParam[] }>();

export function toWireMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  const first = messages[0];
  if (first === undefined) return [];
  const last = lastRequestOf.get(first);
  const wire = last !== undefined && startsWith(messages, last.source) ? last.wire.slice() : [];
  for (let i = wire.length; i < messages.length; i++) wire.push(toWireMessage(messages[i] as ChatMessage));
  if (!Object.isFrozen(messages)) return wire;
  lastRequestOf.set(first, { source: messages, wire });
  // A copy: the caller may change what it is given; what is kept must not change.
  return wire.slice();
}

/** Whether `messages` starts with every message of `prefix`, the very same objects. */
function startsWith(messages: readonly ChatMessage[], prefix: readonly ChatMessage[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return message.toolCalls.length === 0
        ? { role: 'assistant', content: message.content }
        : {
            role: 'assistant',
            content: message.content === '' ? null : message.content,
            tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
          };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default: {
      const never: never = message;
      return never;
    }
  }
}

// A society offers the same tool list call after call: the registry hands out one frozen array
// per policy. Only frozen arrays are cached, so one a caller changes later is never served stale.
const wireToolsCache = new WeakMap<readonly ToolDefinition[], ChatCompletionFunctionTool[]>();

export function toWireTools(tools: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  let wire = wireToolsCache.get(tools);
  if (wire === undefined) {
    wire = tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    if (Object.isFrozen(tools)) wireToolsCache.set(tools, wire);
  }
  return wire;
}

/** Turns one streamed chunk into troupe deltas. */
export function chunkToDeltas(chunk: ChatCompletionChunk): ChatDelta[] {
  const deltas: ChatDelta[] = [];
  for (const choice of chunk.choices) {
    const { content, tool_calls: toolCalls } = choice.delta;
    if (typeof content === 'string' && content !== '') deltas.push({ type: 'text', text: content });
    for (const call of toolCalls ?? []) {
      deltas.push({
        type: 'tool_call',
        index: call.index,
        ...(call.id === undefined ? {} : { id: call.id }),
        ...(call.function?.name === undefined ? {} : { name: call.function.name }),
        ...(call.function?.arguments === undefined ? {} : { arguments: call.function.arguments }),
      });
    }
    if (choice.finish_reason !== null)
      deltas.push({ type: 'finish', reason: choice.finish_reason, ...(typeof chunk.model === 'string' && chunk.model !== '' ? { model: chunk.model } : {}) });
  }
  if (chunk.usage !== undefined && chunk.usage !== null) {
    deltas.push({
      type: 'finish',
      reason: usageOnlyReason,
      usage: { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens },
    });
  }
  return deltas;
}

const WireContentSchema = z.union([z.string(), z.null(), z.array(z.object({ type: z.string(), text: z.string().optional() }).loose())]).optional();

const WireMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: WireContentSchema }).loose(),
  z.object({ role: z.literal('developer'), content: WireContentSchema }).loose(),
  z.object({ role: z.literal('user'), content: WireContentSchema }).loose(),
  z
    .object({
      role: z.literal('assistant'),
      content: WireContentSchema,
      tool_calls: z
        .array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) }))
        .optional(),
    })
    .loose(),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: WireContentSchema }).loose(),
]);

/** The part of a chat-completions request body the local server understands. */
export const WireChatRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(WireMessageSchema).min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    tools: z
      .array(
        z.object({
          type: z.literal('function'),
          function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
        }),
      )
      .optional(),
  })
  .loose();

export type WireChatRequest = z.infer<typeof WireChatRequestSchema>;

function textOf(content: z.infer<typeof WireContentSchema>): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** Reads a validated wire request back into troupe's terms. */
export function fromWireRequest(body: WireChatRequest): ChatRequest {
  const tools = (body.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? '',
    parameters: tool.function.parameters ?? {},
  }));
  const messages = body.messages.map((message): ChatMessage => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content) };
      case 'user':
        return { role: 'user', content: textOf(message.content) };
      case 'assistant':
        return {
          role: 'assistant',
          content: textOf(message.content),
          toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
        };
      case 'tool':
        return { role: 'tool', toolCallId: message.tool_call_id, name: '', content: textOf(message.content) };
      default: {
        const never: never = message;
        return never;
      }
    }
  });
  return { model: body.model, messages, tools };
}

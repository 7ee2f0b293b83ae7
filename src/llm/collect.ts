import { type AssistantMessage, type ChatDelta, type TokenUsage, type ToolCall, usageOnlyReason } from './messages.js';

export interface CollectedReply {
  readonly message: AssistantMessage;
  readonly finishReason: string;
  readonly usage: TokenUsage | undefined;
  /** The model the provider says answered, when it says. */
  readonly model?: string;
}

/**
 * Drains a streamed reply into one assistant message, merging tool-call fragments by index,
 * and hands each text fragment to `onText` as it arrives. A `restart` (the retry layer
 * re-running a failed stream) discards what was collected so far.
 */
export async function collectReply(
  stream: AsyncIterable<ChatDelta>,
  onText?: (text: string) => void,
  onRestart?: (attempt: number) => void,
): Promise<CollectedReply> {
  let content = '';
  let finishReason = 'stop';
  let usage: TokenUsage | undefined;
  let model: string | undefined;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const delta of stream) {
    switch (delta.type) {
      case 'text':
        content += delta.text;
        onText?.(delta.text);
        break;
      case 'tool_call': {
        const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
        if (delta.id !== undefined && delta.id !== '') call.id = delta.id;
        if (delta.name !== undefined) call.name += delta.name;
        if (delta.arguments !== undefined) call.arguments += delta.arguments;
        calls.set(delta.index, call);
        break;
      }
      case 'restart':
        content = '';
        calls.clear();
        onRestart?.(delta.attempt);
        break;
      case 'finish':
        if (delta.reason !== usageOnlyReason) finishReason = delta.reason;
        usage = delta.usage ?? usage;
        model = delta.model ?? model;
        break;
      default: {
        const never: never = delta;
        throw new Error(`unknown delta ${JSON.stringify(never)}`);
      }
    }
  }
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({ id: call.id === '' ? `call_${index}` : call.id, name: call.name, arguments: call.arguments }));
  const message: AssistantMessage = { role: 'assistant', content, toolCalls };
  return model === undefined ? { message, finishReason, usage } : { message, finishReason, usage, model };
}

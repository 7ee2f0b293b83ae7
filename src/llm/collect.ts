import { type AssistantMessage, type ChatDelta, type TokenUsage, type ToolCall, usageOnlyReason } from './messages.js';

export interface CollectedReply {
  readonly message: AssistantMessage;
  readonly finishReason: string;
  readonly usage: TokenUsage | undefined;
  /** The model the provider says answered, when it says. */
  readonly model?: string;
}

/**
 * Assembles a streamed reply, delta by delta, into one assistant message, merging tool-call
 * fragments by index. A `restart` (the retry layer re-running a failed stream) discards what was
 * collected so far.
 */
export class ReplyCollector {
  #content = '';
  #finishReason = 'stop';
  #usage: TokenUsage | undefined;
  #model: string | undefined;
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  add(delta: ChatDelta): void {
    switch (delta.type) {
      case 'text':
        this.#content += delta.text;
        break;
      case 'tool_call': {
        const call = this.#calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
        if (delta.id !== undefined && delta.id !== '') call.id = delta.id;
        if (delta.name !== undefined) call.name += delta.name;
        if (delta.arguments !== undefined) call.arguments += delta.arguments;
        this.#calls.set(delta.index, call);
        break;
      }
      case 'restart':
        this.#content = '';
        this.#calls.clear();
        break;
      case 'finish':
        if (delta.reason !== usageOnlyReason) this.#finishReason = delta.reason;
        this.#usage = delta.usage ?? this.#usage;
        this.#model = delta.model ?? this.#model;
        break;
      default: {
        const never: never = delta;
        throw new Error(`unknown delta ${JSON.stringify(never)}`);
      }
    }
  }

  reply(): CollectedReply {
    const toolCalls: ToolCall[] = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id === '' ? `call_${index}` : call.id, name: call.name, arguments: call.arguments }));
    const message: AssistantMessage = { role: 'assistant', content: this.#content, toolCalls };
    const finishReason = this.#finishReason;
    const usage = this.#usage;
    return this.#model === undefined ? { message, finishReason, usage } : { message, finishReason, usage, model: this.#model };
  }
}

/**
 * Drains a streamed reply into one assistant message (see ReplyCollector), and hands each text
 * fragment to `onText` as it arrives and each restart to `onRestart`.
 */
export async function collectReply(
  stream: AsyncIterable<ChatDelta>,
  onText?: (text: string) => void,
  onRestart?: (attempt: number) => void,
): Promise<CollectedReply> {
  const collector = new ReplyCollector();
  for await (const delta of stream) {
    collector.add(delta);
    if (delta.type === 'text') onText?.(delta.text);
    else if (delta.type === 'restart') onRestart?.(delta.attempt);
  }
  return collector.reply();
}

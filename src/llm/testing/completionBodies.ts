import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ChatRequest } from '../messages.js';
import { type ScriptReply, streamReply } from '../scriptedReply.js';

/*
 * Chat-completion bodies built from a ScriptReply. Both shapes come from `streamReply`, so the
 * streamed and the whole reply carry the same words, tool-call ids and argument text.
 */

/** What every body of one completion shares. */
export interface CompletionContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** Tool-call ids are `<callIdPrefix>_<index>`. */
  readonly callIdPrefix: string;
  readonly promptTokens: number;
}

/** A rough token count (a quarter of the characters), enough for usage figures that move with the text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function promptTokensOf(request: ChatRequest): number {
  return request.messages.reduce((sum, message) => {
    const calls = message.role === 'assistant' ? message.toolCalls.map((call) => call.name + call.arguments).join('') : '';
    return sum + estimateTokens(message.content + calls);
  }, 0);
}

function usageOf(context: CompletionContext, completionTokens: number): CompletionUsage {
  return { prompt_tokens: context.promptTokens, completion_tokens: completionTokens, total_tokens: context.promptTokens + completionTokens };
}

type FinishReason = 'stop' | 'tool_calls';

function finishReasonOf(reason: string): FinishReason {
  return reason === 'tool_calls' ? 'tool_calls' : 'stop';
}

/** The whole reply as a `chat.completion` object. */
export function completionOf(reply: ScriptReply, context: CompletionContext): ChatCompletion {
  let text = '';
  let finishReason: FinishReason = 'stop';
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  for (const delta of streamReply(reply, undefined, context.callIdPrefix)) {
    switch (delta.type) {
      case 'text':
        text += delta.text;
        break;
      case 'tool_call': {
        const call = calls[delta.index] ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
        if (delta.id !== undefined) call.id = delta.id;
        call.function.name += delta.name ?? '';
        call.function.arguments += delta.arguments ?? '';
        calls[delta.index] = call;
        break;
      }
      case 'finish':
        finishReason = finishReasonOf(delta.reason);
        break;
      case 'restart':
        text = '';
        calls.length = 0;
        break;
      default: {
        const never: never = delta;
        throw new Error(`unknown delta ${JSON.stringify(never)}`);
      }
    }
  }
  const completionChars = text + calls.map((call) => call.function.name + call.function.arguments).join('');
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    usage: usageOf(context, estimateTokens(completionChars)),
  };
}

/**
 * The reply as `chat.completion.chunk`s, in OpenAI's order: a role chunk, text in word-sized
 * pieces, per tool call a header (index, id, type, name, empty arguments) then argument
 * fragments (index and arguments only), a chunk with the finish reason, and with
 * `includeUsage` a last chunk with no choices and the usage (earlier chunks then say `usage: null`).
 */
export function* chunksOf(reply: ScriptReply, context: CompletionContext, includeUsage: boolean): Generator<ChatCompletionChunk, void> {
  const base = {
    id: context.id,
    object: 'chat.completion.chunk' as const,
    created: context.created,
    model: context.model,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (delta: ChatCompletionChunk.Choice.Delta, finishReason: FinishReason | null = null): ChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const onlyToolCalls = (reply.text ?? '') === '' && (reply.toolCalls ?? []).length > 0;
  yield chunk({ role: 'assistant', content: onlyToolCalls ? null : '' });
  let completionChars = 0;
  for (const delta of streamReply(reply, undefined, context.callIdPrefix)) {
    switch (delta.type) {
      case 'text':
        completionChars += delta.text.length;
        yield chunk({ content: delta.text });
        break;
      case 'tool_call': {
        const { index, id, name = '', arguments: args = '' } = delta;
        completionChars += name.length + args.length;
        if (id !== undefined) yield chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] });
        else if (args !== '') yield chunk({ tool_calls: [{ index, function: { arguments: args } }] });
        break;
      }
      case 'finish':
        yield chunk({}, finishReasonOf(delta.reason));
        break;
      case 'restart':
        throw new Error('a scripted reply never restarts');
      default: {
        const never: never = delta;
        throw new Error(`unknown delta ${JSON.stringify(never)}`);
      }
    }
  }
  if (includeUsage) yield { ...base, choices: [], usage: usageOf(context, Math.ceil(completionChars / 4)) };
}

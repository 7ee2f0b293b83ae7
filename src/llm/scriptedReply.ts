import type { ChatDelta } from './messages.js';

/** One reply a scripted model gives: text, tool calls, or both. */
export interface ScriptReply {
  readonly text?: string;
  /** `arguments` is sent as given when a string (so tests can send malformed JSON), else as JSON. */
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: unknown; readonly id?: string }[];
}

/**
 * Streams a reply the way an OpenAI-compatible server would: text in word-sized chunks,
 * each tool call as a header fragment followed by argument fragments. Tool-call ids are
 * `<idPrefix>_<index>`: callers pass a prefix unique to the call, as real providers' ids are.
 */
export function* streamReply(reply: ScriptReply, signal?: AbortSignal, idPrefix = 'call'): Generator<ChatDelta> {
  const text = reply.text ?? '';
  for (const chunk of text.match(/\S+\s*|\s+/g) ?? []) {
    signal?.throwIfAborted();
    yield { type: 'text', text: chunk };
  }
  const calls = reply.toolCalls ?? [];
  for (const [index, call] of calls.entries()) {
    signal?.throwIfAborted();
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
    yield { type: 'tool_call', index, id: call.id ?? `${idPrefix}_${index}`, name: call.name };
    const half = Math.ceil(args.length / 2);
    yield { type: 'tool_call', index, arguments: args.slice(0, half) };
    yield { type: 'tool_call', index, arguments: args.slice(half) };
  }
  yield { type: 'finish', reason: calls.length > 0 ? 'tool_calls' : 'stop' };
}

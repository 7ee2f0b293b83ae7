import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from '../../src/task/index.js';

/**
 * The tokens of a request, counted apart from the context builder: each message's role and
 * content through gpt-tokenizer's own chat encoding for gpt-4o (exact), plus, for tool calls and
 * tool results, the builder's documented estimate (a call: name, arguments and 3; a result: the
 * tool's name and 1).
 */
export function realTokens(messages: readonly ChatMessage[]): number {
  let toolParts = 0;
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) toolParts += plain(call.name) + plain(call.arguments) + 3;
    if (message.role === 'tool') toolParts += plain(message.name) + 1;
  }
  return (
    encodeChat(
      messages.map(({ role, content }) => ({ role, content })),
      'gpt-4o',
    ).length + toolParts
  );
}

function plain(text: string): number {
  // An empty chat still has the reply's 3 tokens of priming; a user message adds its 4 of frame.
  return encodeChat([{ role: 'user', content: text }], 'gpt-4o').length - 7;
}

/** Texts of the messages, for finding what a context contains. */
export function contents(messages: readonly ChatMessage[]): string {
  return messages.map((message) => message.content).join('\n');
}

/**
 * What a provider requires: each tool message follows (over its siblings) the assistant message
 * that made its call, and that message gets all its results (but `inFlight`, the step whose
 * results are not in yet).
 */
export function pairingViolations(messages: readonly ChatMessage[], inFlight?: ChatMessage): string[] {
  const problems: string[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      let owner = i - 1;
      while (messages[owner]?.role === 'tool') owner--;
      const candidate = messages[owner];
      if (candidate?.role !== 'assistant' || !candidate.toolCalls.some((call) => call.id === message.toolCallId)) problems.push(`orphan tool result at ${i}`);
    }
    if (message.role === 'assistant' && message.toolCalls.length > 0 && message !== inFlight) {
      const results = messages.slice(i + 1, i + 1 + message.toolCalls.length);
      if (results.some((result, k) => result.role !== 'tool' || result.toolCallId !== message.toolCalls[k]?.id))
        problems.push(`tool calls without results at ${i}`);
    }
  });
  return problems;
}

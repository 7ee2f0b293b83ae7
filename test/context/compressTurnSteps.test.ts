import { describe, expect, it } from 'vitest';
import { buildContext, compressTurnSteps, summaryHeader } from '../../src/context/index.js';
import type { ChatMessage } from '../../src/task/index.js';

const call = (id: string, name = 'echo') => ({ id, name, arguments: '{}' });

/** A turn: its prompt, a tool step with two results, a plain reply, then the step in flight (calling compress_context). */
const turn: ChatMessage[] = [
  { role: 'user', content: '[from user · task t1 · execute]\nfind out' },
  { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
  { role: 'tool', toolCallId: 'a', name: 'echo', content: 'A' },
  { role: 'tool', toolCallId: 'b', name: 'echo', content: 'B' },
  { role: 'assistant', content: 'thinking it over', toolCalls: [] },
  { role: 'assistant', content: '', toolCalls: [call('c', 'compress_context')] },
];

describe('compressTurnSteps', () => {
  it('puts the summary first, keeps the last keepRecent steps and the step in flight', () => {
    expect(compressTurnSteps(turn, 'S', 1)).toEqual({
      messages: [{ role: 'system', content: `${summaryHeader}\nS` }, turn[4], turn[5]],
      removed: 4,
      kept: 2,
    });
  });

  it('never parts a tool result from its call: a window starting on one reaches back to the call', () => {
    const { messages, removed } = compressTurnSteps(turn, 'S', 2);
    expect(messages.slice(1)).toEqual(turn.slice(1));
    expect(removed).toBe(1);
  });

  it('gives steps the context builder keeps verbatim after the memory', () => {
    const { messages } = compressTurnSteps(turn, 'S', 1);
    const built = buildContext({ agentId: 'root', sessionId: 's1', rolePrompt: 'prompt', turn: messages });
    expect(built.messages.slice(1)).toEqual(messages);
  });
});

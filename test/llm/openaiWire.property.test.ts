import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/llm/index.js';
import { toWireMessages } from '../../src/llm/openaiWire.js';
import { compressTurnSteps } from '../../src/context/index.js';

// toWireMessages remembers the last request of each conversation and extends it; whatever a
// conversation goes through, a request must come out as if it were converted from scratch:
// message by message, each alone (a one-message request is never extended from a longer one).
const fromScratch = (messages: readonly ChatMessage[]): unknown[] => messages.flatMap((one) => toWireMessages([one]));

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.string().map((content): ChatMessage => ({ role: 'user', content })),
  fc.string().map((content): ChatMessage => ({ role: 'assistant', content, toolCalls: [] })),
  fc.tuple(fc.string(), fc.nat(5)).map(([content, calls]): ChatMessage => ({
    role: 'assistant',
    content,
    toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `call_${i}`, name: 'echo', arguments: `{"n":${i}}` })),
  })),
  fc.string().map((content): ChatMessage => ({ role: 'tool', toolCallId: 'call_0', name: 'echo', content })),
);

type Step = { kind: 'append'; messages: ChatMessage[] } | { kind: 'compress'; summary: string; keep: number } | { kind: 'send' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.array(message, { minLength: 1, maxLength: 4 }).map((messages): Step => ({ kind: 'append', messages })),
  fc.tuple(fc.string(), fc.nat(6)).map(([summary, keep]): Step => ({ kind: 'compress', summary, keep })),
  fc.constant<Step>({ kind: 'send' }),
);

describe('toWireMessages', () => {
  it('gives every request of a changing conversation exactly its from-scratch wire form', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        // A fresh array per request, as a turn's context is built anew for every model call.
        let request: readonly ChatMessage[] = [{ role: 'system', content: 'system prompt' }];
        for (const next of [...steps, { kind: 'send' } as const]) {
          if (next.kind === 'append') request = [...request, ...next.messages];
          else if (next.kind === 'compress') request = [...request.slice(0, 1), ...compressTurnSteps(request.slice(1), next.summary, next.keep).messages];
          const wire = toWireMessages(request);
          expect(wire).toEqual(fromScratch(request));
          // What a caller does with its copy cannot reach the next request.
          wire.pop();
          wire.push({ role: 'user', content: 'changed by the caller' });
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives an empty conversation an empty request', () => {
    expect(toWireMessages([])).toEqual([]);
  });
});

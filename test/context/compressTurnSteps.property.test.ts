import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/llm/index.js';
import { compressTurnSteps, summaryHeader } from '../../src/context/index.js';
import { pairingViolations } from '../support/contextChecks.js';

// Property 9 of seed 004: compress_context replaces a turn's steps with the caller's summary and
// the recent steps, never splitting a tool call from its results. (Property 10, the length
// warning, is checked on the turn the runtime runs: test/runtime/conversation.warning.test.ts.)
// fast-check prints the seed and path of any failure, so a failing case can be replayed.

type Piece =
  { readonly kind: 'user' | 'assistant' | 'note'; readonly text: string } | { readonly kind: 'tools'; readonly text: string; readonly calls: number };

const pieceArb: fc.Arbitrary<Piece> = fc.oneof(
  fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const, 'note' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ kind: fc.constant('tools' as const), text: fc.string({ maxLength: 12 }), calls: fc.integer({ min: 1, max: 3 }) }),
);

/**
 * A well-formed conversation: the system prompt, then user and assistant messages, system notes,
 * and steps of an assistant message with tool calls followed by one result per call. When
 * `inFlight` > 0 it ends with the step being acted on now: an assistant message whose calls
 * (the first one compress_context) have no results yet.
 */
const conversationArb = fc
  .record({ system: fc.string({ maxLength: 12 }), pieces: fc.array(pieceArb, { maxLength: 30 }), inFlight: fc.integer({ min: 0, max: 3 }) })
  .map(({ system, pieces, inFlight }) => {
    let next = 0;
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${++next}`, name: i === 0 ? 'compress_context' : 'echo', arguments: '{}' }));
    const messages: ChatMessage[] = [{ role: 'system', content: system }];
    for (const piece of pieces) {
      if (piece.kind === 'tools') {
        const toolCalls = calls(piece.calls);
        messages.push({ role: 'assistant', content: piece.text, toolCalls });
        for (const call of toolCalls) messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: piece.text });
      } else if (piece.kind === 'user') messages.push({ role: 'user', content: piece.text });
      else if (piece.kind === 'note') messages.push({ role: 'system', content: piece.text });
      else messages.push({ role: 'assistant', content: piece.text, toolCalls: [] });
    }
    if (inFlight > 0) messages.push({ role: 'assistant', content: '', toolCalls: calls(inFlight) });
    return messages;
  });

const isCallStep = (message: ChatMessage | undefined): boolean => message?.role === 'assistant' && message.toolCalls.length > 0;

describe('compress_context (property 9)', () => {
  it('keeps the summary, then the last keepRecent messages, extended back only to keep a tool call with its results', () => {
    fc.assert(
      fc.property(conversationArb, fc.string({ minLength: 1, maxLength: 30 }), fc.nat({ max: 40 }), (conversation, summary, keepRecent) => {
        // The turn's steps: what follows the system prompt the context is built around.
        const messages = conversation.slice(1);
        const { messages: out, removed, kept } = compressTurnSteps(messages, summary, keepRecent);

        // (1) the summary first; (2) the rest is a suffix of the steps, copied verbatim.
        expect(out[0]).toEqual({ role: 'system', content: `${summaryHeader}\n${summary}` });
        const rest = out.slice(1);
        expect(rest.length).toBeLessThanOrEqual(messages.length);
        expect(rest).toEqual(messages.slice(messages.length - rest.length));
        expect(kept).toBe(rest.length);

        // The step in flight (a trailing assistant message with calls) is kept, outside the count.
        const last = messages.at(-1);
        const inFlight = isCallStep(last) ? last : undefined;
        if (inFlight !== undefined) expect(rest.at(-1)).toBe(inFlight);
        const history = messages.slice(0, messages.length - (inFlight === undefined ? 0 : 1));
        const window = rest.length - (inFlight === undefined ? 0 : 1);
        expect(removed).toBe(history.length - window);

        // The window is exactly the last keepRecent messages of the history, unless that would
        // start on a tool result: then it reaches back to the assistant message that made the
        // call, over that call's sibling results and nothing else.
        if (keepRecent >= history.length) {
          expect(window).toBe(history.length);
        } else {
          const cut = history[history.length - keepRecent];
          if (cut?.role !== 'tool') {
            expect(window).toBe(keepRecent);
          } else {
            expect(window).toBeGreaterThan(keepRecent);
            const first = history[history.length - window];
            expect(first?.role === 'assistant' && first.toolCalls.some((call) => call.id === cut.toolCallId)).toBe(true);
            expect(history.slice(history.length - window + 1, history.length - keepRecent).every((message) => message.role === 'tool')).toBe(true);
          }
        }

        // Never a tool message without its assistant call, nor a finished call without its results.
        expect(pairingViolations(out, inFlight)).toEqual([]);
      }),
    );
  });

  it('with the step in flight and keepRecent 0, leaves only the summary and that step', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'echo', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'a', name: 'echo', content: 'x' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'b', name: 'compress_context', arguments: '{}' }] },
    ];
    expect(compressTurnSteps(messages, 'S', 0)).toEqual({
      messages: [{ role: 'system', content: `${summaryHeader}\nS` }, messages[3]],
      removed: 3,
      kept: 1,
    });
    // keepRecent 1 would start on the tool result: the window reaches back to its call.
    expect(compressTurnSteps(messages, 'S', 1).messages.slice(1)).toEqual(messages.slice(1));
  });
});

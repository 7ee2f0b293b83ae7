import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenCounter, fitTurnSteps, summaryHeader } from '../../src/context/index.js';
import { cutMark } from '../../src/context/fitTurnSteps.js';
import type { ChatMessage } from '../../src/task/index.js';
import { loggedSeed } from '../support/loggedSeed.js';

// Issue 33, point 9: a turn that outgrows its token budget within itself (a long tool loop) is
// compacted before the next model call, with no model call: its prompt kept, the older steps
// summarised, the newest verbatim, so the request fits.

const counter = new TokenCounter();
const tokens = (messages: readonly ChatMessage[]): number => messages.reduce((sum, message) => sum + counter.message(message), 0);

/** A turn: its prompt, then `results.length` steps of one tool call each, whose results have those many words. */
function loop(results: readonly number[], promptWords = 5): ChatMessage[] {
  const steps: ChatMessage[] = [{ role: 'user', content: `Find the answer ${'please '.repeat(promptWords)}` }];
  results.forEach((words, i) => {
    const name = i % 3 === 0 ? 'search' : 'fetch';
    steps.push({ role: 'assistant', content: i === 0 ? 'Looking.' : '', toolCalls: [{ id: `c${i}`, name, arguments: `{"n":${i}}` }] });
    steps.push({ role: 'tool', toolCallId: `c${i}`, name, content: `result ${i}: ${'word '.repeat(words)}end ${i}` });
  });
  return steps;
}

/** Every tool result follows the assistant message that made its call. */
function callsBeforeResults(steps: readonly ChatMessage[]): boolean {
  const called = new Set<string>();
  for (const step of steps) {
    if (step.role === 'assistant') for (const call of step.toolCalls) called.add(call.id);
    if (step.role === 'tool' && !called.has(step.toolCallId)) return false;
  }
  return true;
}

describe('fitTurnSteps', () => {
  it('leaves steps that fit as they are', () => {
    const steps = loop([5, 5]);
    expect(fitTurnSteps(steps, tokens(steps))).toBeNull();
  });

  it('keeps the prompt, summarises the older steps, keeps the newest verbatim within the target, and never orphans a result', () => {
    const steps = loop(Array.from({ length: 40 }, () => 30));
    const room = Math.floor(tokens(steps) / 3);
    const fitted = fitTurnSteps(steps, room, Math.floor(room / 2));
    expect(fitted).not.toBeNull();
    if (fitted === null) return;
    expect(tokens(fitted.steps)).toBeLessThanOrEqual(Math.floor(room / 2));
    expect(fitted.steps[0]).toEqual(steps[0]);
    const summary = fitted.steps[1];
    expect(summary?.role).toBe('system');
    expect(summary?.content).toContain(summaryHeader);
    expect(summary?.content).toMatch(/Tools called: search ×\d+, fetch ×\d+/);
    expect(fitted.steps.at(-1)).toEqual(steps.at(-1));
    expect(callsBeforeResults(fitted.steps)).toBe(true);
    expect(fitted.cut).toBe(false);
    expect(fitted.removed + fitted.kept).toBe(steps.length);
  });

  it('cuts the prompt, marked, when it alone is over the room', () => {
    const steps = loop([10, 10], 2_000);
    const fitted = fitTurnSteps(steps, 300);
    expect(fitted?.cut).toBe(true);
    expect(tokens(fitted?.steps ?? [])).toBeLessThanOrEqual(300);
    expect(fitted?.steps[0]?.content.endsWith(cutMark)).toBe(true);
  });

  it('for any loop and any room, what it returns fits the room, starts with the prompt and keeps every result after its call', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 60, max: 6_000 }),
        fc.nat({ max: 300 }),
        (results, room, promptWords) => {
          const steps = loop(results, promptWords);
          const fitted = fitTurnSteps(steps, room);
          if (fitted === null) {
            expect(tokens(steps)).toBeLessThanOrEqual(room);
            return;
          }
          expect(tokens(fitted.steps)).toBeLessThanOrEqual(room);
          expect(fitted.steps[0]?.role).toBe('user');
          expect(callsBeforeResults(fitted.steps)).toBe(true);
        },
      ),
      loggedSeed('fitTurnSteps', 150),
    );
  });
});

import fc from 'fast-check';
import { countTokens, encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/context/index.js';
import { ValidationError } from '../../src/errors.js';
import type { ChatMessage } from '../../src/task/index.js';
import { loggedSeed } from '../support/loggedSeed.js';

// Text a model sees: words, numbers, punctuation, blanks and newlines, and some Unicode.
const textArb = fc.string({ unit: fc.constantFrom('a', 'Z', 'é', '語', '7', ' ', '\n', '\r', '\t', '.', '-', '[', "'", 's', 'x', '😀'), maxLength: 40 });
const plainMessageArb: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constantFrom('system' as const, 'user' as const), content: textArb }),
  textArb.map((content): ChatMessage => ({ role: 'assistant', content, toolCalls: [] })),
);

describe('TokenCounter', () => {
  it('counts a request of plain messages exactly as gpt-tokenizer encodes the chat for gpt-4o', () => {
    fc.assert(
      fc.property(fc.array(plainMessageArb, { maxLength: 12 }), (messages) => {
        const real = encodeChat(
          messages.map(({ role, content }) => ({ role, content })),
          'gpt-4o',
        ).length;
        expect(new TokenCounter().request(messages)).toBe(real);
      }),
      loggedSeed('request tokens = encodeChat'),
    );
  });

  it('counts a block of lines (each ending in a newline, starting with no blank) as the sum of its lines', () => {
    const lineArb = fc.tuple(fc.constantFrom('- ', '[', 'user: ', 'x'), textArb).map(([start, rest]) => `${start}${rest}\n`);
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 20 }), (lines) => {
        const counter = new TokenCounter();
        const sum = lines.reduce((total, line) => total + counter.text(line), 0);
        expect(sum).toBe(countTokens(lines.join(''), { disallowedSpecial: new Set() }));
      }),
      loggedSeed('line tokens add up'),
    );
  });

  it('counts text that looks like a special token as the plain text a provider sees, without throwing', () => {
    const counter = new TokenCounter();
    expect(counter.text('a <|endoftext|> b')).toBeGreaterThan(3);
    expect(counter.message({ role: 'user', content: '<|im_end|>' })).toBe(4 + counter.text('<|im_end|>'));
  });

  it('adds tool calls and tool results to a message by the documented estimate', () => {
    const counter = new TokenCounter();
    const call = { id: 'c1', name: 'get_weather', arguments: '{"city":"Lisbon"}' };
    const t = (text: string) => counter.text(text);
    expect(counter.message({ role: 'assistant', content: 'checking', toolCalls: [call] })).toBe(4 + t('checking') + t('get_weather') + t(call.arguments) + 3);
    expect(counter.message({ role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'rain' })).toBe(4 + t('rain') + t('get_weather') + 1);
  });

  it('keeps at most maxCachedChars characters of text in its cache, oldest out first, and counts the same without it', () => {
    const bounded = new TokenCounter({ maxCachedChars: 100 });
    const unbounded = new TokenCounter();
    for (let i = 0; i < 50; i++) {
      const text = `line ${i} of some text that is long enough`;
      expect(bounded.text(text)).toBe(unbounded.text(text));
      expect(bounded.cachedChars).toBeLessThanOrEqual(100);
    }
    expect(unbounded.cachedChars).toBeGreaterThan(100);
    // A text longer than the whole cache is counted and not kept.
    expect(bounded.text('x'.repeat(500))).toBe(countTokens('x'.repeat(500)));
    expect(bounded.cachedChars).toBeLessThanOrEqual(100);
  });

  it("counts a message's short parts (tool names, small arguments) once by value, and keeps long ones out of the cache", () => {
    const counter = new TokenCounter();
    const long = 'word '.repeat(200);
    const tokens = counter.message({ role: 'tool', toolCallId: 'c1', name: 'get_weather', content: long });
    expect(tokens).toBe(4 + countTokens(long) + countTokens('get_weather') + 1);
    expect(counter.cachedChars).toBe('get_weather'.length);
    counter.message({ role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'get_weather', arguments: '{"city":"Lisbon"}' }] });
    expect(counter.cachedChars).toBe('get_weather'.length + '{"city":"Lisbon"}'.length);
  });

  it('refuses a bad cache limit, naming it', () => {
    expect(() => new TokenCounter({ maxCachedChars: -1 })).toThrow(ValidationError);
    expect(() => new TokenCounter({ maxCachedChars: 1.5 })).toThrow(/tokenCounter\.maxCachedChars/);
  });
});

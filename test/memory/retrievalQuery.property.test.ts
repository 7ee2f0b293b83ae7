import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retrievalQuery } from '../../src/memory/retrievalQuery.js';

// A turn's search query is built from its Task's text within the fact store's maxQueryChars.

describe('retrievalQuery', () => {
  it('is never longer than the limit, is the whole text when that fits, and otherwise keeps both ends', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.integer({ min: 1, max: 600 }), (text, max) => {
        const query = retrievalQuery(text, max);
        expect(query.length).toBeLessThanOrEqual(max);
        if (text.trim().length <= max) expect(query).toBe(text.trim());
      }),
    );
  });

  it('keeps the opening and the closing question of a long request, cut between words', () => {
    const text = `Background for the question: ${'the harbour log lists ships and tides. '.repeat(150)}So, which ship left at dawn?`;
    const query = retrievalQuery(text, 4000);
    expect(text.length).toBeGreaterThan(5000);
    expect(query.length).toBeLessThanOrEqual(4000);
    expect(query.startsWith('Background for the question:')).toBe(true);
    expect(query.endsWith('which ship left at dawn?')).toBe(true);
    for (const word of query.split(/\s+/).filter((word) => word !== '…')) expect(text).toContain(word);
  });

  it('never splits a surrogate pair', () => {
    const query = retrievalQuery('🌧'.repeat(5000), 101);
    expect(query.length).toBeLessThanOrEqual(101);
    expect(query).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('is blank for blank text', () => {
    expect(retrievalQuery(' \n\t ', 10)).toBe('');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requiredLiteral } from '../../src/skills/requiredLiteral.js';

describe('the text every match of a trigger pattern must contain', () => {
  it('is the longest top-level run of literal characters, lower-cased', () => {
    expect(requiredLiteral('\\bInvoice-12\\b')).toBe('invoice-12');
    expect(requiredLiteral('refund (for|of) order \\d+')).toBe('refund ');
    expect(requiredLiteral('colou?r chart')).toBe('r chart');
    expect(requiredLiteral('ab+cdef')).toBe('cdef');
    expect(requiredLiteral('v\\d+\\.\\d+ release')).toBe(' release');
    expect(requiredLiteral('file\\.pdf')).toBe('file.pdf');
  });

  it('is none where no text is certain: a top-level alternative, an optional or short run, or what an escape stands for', () => {
    expect(requiredLiteral('invoice|receipt')).toBeUndefined();
    expect(requiredLiteral('(invoice)?')).toBeUndefined();
    expect(requiredLiteral('ab')).toBeUndefined();
    expect(requiredLiteral('ab*c')).toBeUndefined();
    expect(requiredLiteral('\\x41\\x42\\x43')).toBeUndefined();
    expect(requiredLiteral('[abc][def][ghi]')).toBeUndefined();
    expect(requiredLiteral('café au lait')).toBeUndefined();
  });

  it('reads escapes and classes whole inside a group, so `\\(` or `[)]` ends no group', () => {
    expect(requiredLiteral('(a\\)b|c)xyz')).toBe('xyz');
    expect(requiredLiteral('(a[)]b|c)xyz')).toBe('xyz');
  });

  it('is in every text the pattern matches (random patterns and texts)', () => {
    const atom = fc.constantFrom('a', 'b', 'c', 'A', ' ', '-', '.', '\\b', '\\d', '\\.', '[ab]', '[^a]', '(a|b)', '(?:ab)', '(b)', '1', '\\(', '\\)');
    const quantifier = fc.constantFrom('', '', '', '?', '*', '+', '{2}', '{0,2}', '+?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const pattern = fc.array(fc.oneof(piece, fc.constant('|')), { minLength: 1, maxLength: 10 }).map((pieces) => pieces.join(''));
    const text = fc.stringMatching(/^[abcAB1 .()-]{0,24}$/);
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 20, maxLength: 20 }), (source, texts) => {
        let regex: RegExp;
        try {
          regex = new RegExp(source, 'i');
        } catch {
          return;
        }
        const literal = requiredLiteral(source);
        if (literal === undefined) return;
        for (const candidate of texts) if (regex.test(candidate)) expect(candidate.toLowerCase()).toContain(literal);
        // A text built to match, where the pattern allows it: the literal's own text with the rest around it.
        for (const candidate of [literal, `x${literal}x`, literal.toUpperCase()]) if (regex.test(candidate)) expect(candidate.toLowerCase()).toContain(literal);
      }),
      { numRuns: 3_000 },
    );
  });
});

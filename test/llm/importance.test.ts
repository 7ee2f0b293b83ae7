import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportanceTagStripper, readImportance } from '../../src/llm/index.js';

describe('importance tags', () => {
  it('reads the last valid value and strips every tag', () => {
    expect(readImportance('Done.<imp:0.3/> Really done <imp: 0.85 />')).toEqual({ text: 'Done. Really done ', importance: 0.85 });
    expect(readImportance('no tag')).toEqual({ text: 'no tag', importance: undefined });
    expect(readImportance('<imp:7/>out of range')).toEqual({ text: 'out of range', importance: undefined });
    expect(readImportance('a < b and <imp:x/>')).toEqual({ text: 'a < b and <imp:x/>', importance: undefined });
  });

  it('strips tags from a stream however the text is cut into fragments', () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom('<imp:0.9/>', '<imp:0.25/>', '<', '<i', 'a<b', ' x ', '<imp', '/>'), fc.string({ maxLength: 6 })), { maxLength: 12 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (whole, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        const fragments = [0, ...points].map((from, i) => whole.slice(from, [...points, whole.length][i]));
        const stripper = new ImportanceTagStripper();
        const shown = fragments.map((fragment) => stripper.push(fragment)).join('') + stripper.flush();
        expect(shown).toBe(readImportance(whole).text);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, redactedCanonicalJson } from '../../src/replay/canonical.js';
import { type JsonValue, Redactor } from '../../src/task/index.js';
import { loggedSeed } from '../support/loggedSeed.js';

/** What canonical JSON is defined as: JSON.stringify of a copy with every object's keys inserted sorted. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) => {
    if (field === null || typeof field !== 'object' || Array.isArray(field) || field instanceof Uint8Array) return field;
    return Object.fromEntries(
      Object.keys(field)
        .sort()
        .map((key) => [key, (field as Record<string, unknown>)[key]]),
    );
  });
}

const unit = fc.constantFrom('a', 'B', '0', '7', ' ', '"', '\\', 'é', '😀', '/', '\n', '=', '-');
const text = fc.oneof(fc.string({ unit, maxLength: 6 }), fc.constantFrom('hunter2-configured', 'sk-abcdefghijklmnopqrstu', 'apiKey'));
const data = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: true }),
    fc.constant(new Uint8Array([1, 2])),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value;

/** `value` inside `depth` arrays. */
const nested = (value: unknown, depth: number): unknown => (depth === 0 ? value : [nested(value, depth - 1)]);

describe('canonical JSON', () => {
  it('is JSON with sorted keys, for plain data written directly and for anything else (dates, typed arrays, index-like keys)', () => {
    fc.assert(
      fc.property(data, (value) => {
        expect(canonicalJson(value)).toBe(sortedJson(value));
      }),
      loggedSeed('canonical JSON'),
    );
    expect(canonicalJson({ b: 1, a: { d: [1, undefined], c: -0 }, 10: 'x', 9: 'y' })).toBe('{"9":"y","10":"x","a":{"c":0,"d":[1,null]},"b":1}');
    expect(canonicalJson(nested({ b: 1, a: 2 }, 300))).toBe(sortedJson(nested({ b: 1, a: 2 }, 300)));
  });

  it('of redacted data is the same whether or not the redaction could be skipped', () => {
    const redactor = new Redactor(['hunter2-configured']);
    fc.assert(
      fc.property(data, (value) => {
        expect(redactedCanonicalJson(value, redactor, 'value')).toBe(canonicalJson(redactor.value(value as JsonValue)));
        expect(redactedCanonicalJson(value, redactor, 'arguments')).toBe(canonicalJson(redactor.unknown(value, 64)));
      }),
      loggedSeed('redacted canonical JSON'),
    );
    for (const depth of [62, 63, 64, 65])
      expect(redactedCanonicalJson(nested({ n: 1 }, depth), redactor, 'arguments')).toBe(canonicalJson(redactor.unknown(nested({ n: 1 }, depth), 64)));
  });
});

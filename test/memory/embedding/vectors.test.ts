import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { halfPrecision, halfPrecisionBytes, vectorFromHalfBytes } from '../../../src/memory/embedding/vectors.js';
import { loggedSeed } from '../../support/loggedSeed.js';

// Half precision, as L4 keeps its vectors: each number rounded to the nearest float16.

/** Every finite positive float16, in order (bit patterns 1 to 0x7bff), worked out from the format. */
const halves = Array.from({ length: 0x7bff }, (_, i) => {
  const bits = i + 1;
  const exponent = bits >> 10;
  const mantissa = bits & 0x3ff;
  return exponent === 0 ? mantissa * 2 ** -24 : (1 + mantissa / 1024) * 2 ** (exponent - 15);
});

/** The float16 nearest `x` ≥ 0, ties to the even bit pattern, by search over them all. */
function nearestHalf(x: number): number {
  if (x >= 65520) return Infinity;
  let low = -1;
  let high = halves.length;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if ((halves[middle] ?? 0) <= x) low = middle;
    else high = middle;
  }
  const below = low < 0 ? 0 : (halves[low] ?? 0);
  const above = halves[high] ?? Infinity;
  if (x - below !== above - x) return x - below < above - x ? below : above;
  // A tie: the even pattern (pattern = index + 1; zero is pattern 0).
  return (low + 1) % 2 === 0 ? below : above;
}

describe('half precision', () => {
  it('rounds known values', () => {
    expect([...halfPrecision(new Float32Array([1 / 3, -0.1, 1, 0, 65504, 65520, 1e-8, 6e-8]))]).toEqual([
      0.333251953125,
      -0.0999755859375,
      1,
      0,
      65504,
      Infinity,
      0,
      2 ** -24,
    ]);
  });

  it('gives each number the nearest float16, and its bytes give that number back', () => {
    fc.assert(
      fc.property(fc.float({ min: 0, max: 70_000, noNaN: true }), fc.boolean(), (magnitude, negative) => {
        const x = negative ? -magnitude : magnitude;
        const [rounded] = halfPrecision(new Float32Array([x]));
        expect(Math.abs(rounded ?? NaN)).toBe(nearestHalf(Math.abs(Math.fround(x))));
        expect([...vectorFromHalfBytes(halfPrecisionBytes(new Float32Array([x])))]).toEqual([rounded]);
      }),
      loggedSeed('half precision', 2000),
    );
  });

  it('stores every float16 exactly, in two bytes', () => {
    const all = new Float32Array([...halves, ...halves.map((x) => -x)]);
    const bytes = halfPrecisionBytes(all);
    expect(bytes.byteLength).toBe(all.length * 2);
    expect(vectorFromHalfBytes(bytes)).toEqual(all);
  });
});

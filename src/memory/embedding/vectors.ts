/** Vector arithmetic L4 needs, on the unit vectors embedders return. */

/**
 * The dot product of two vectors of the same length (their cosine when both are unit vectors).
 * Every index is in range, so the numbers are read as numbers: a `?? 0` on each read made the
 * loop about 2.5 times slower. Four running sums, not one: each add waits for the one before on
 * the same sum, and four chains in flight halve the time of a 384-dimension product.
 */
export function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const length = a.length;
  let i = 0;
  for (; i + 3 < length; i += 4) {
    s0 += (a[i] as number) * (b[i] as number);
    s1 += (a[i + 1] as number) * (b[i + 1] as number);
    s2 += (a[i + 2] as number) * (b[i + 2] as number);
    s3 += (a[i + 3] as number) * (b[i + 3] as number);
  }
  for (; i < length; i++) s0 += (a[i] as number) * (b[i] as number);
  return s0 + s1 + (s2 + s3);
}

/** The cosine of two vectors of the same length (their dot product when both are unit vectors, as embedders' are). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let squaresA = 0;
  let squaresB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    squaresA += x * x;
    squaresB += y * y;
  }
  return squaresA === 0 || squaresB === 0 ? 0 : dot / Math.sqrt(squaresA * squaresB);
}

/** A vector as the little-endian float16 bytes it is stored as (a copy: lmdb keeps what it is given); see `halfPrecision`. */
export function halfPrecisionBytes(vector: Float32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(vector.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setUint16(i * 2, toHalf(vector[i] ?? 0), true);
  return bytes;
}

/** The vector stored as float16 `bytes` (read from a copy: lmdb may reuse the buffer it hands out). */
export function vectorFromHalfBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 2);
  for (let i = 0; i < vector.length; i++) vector[i] = fromHalf(view.getUint16(i * 2, true));
  return vector;
}

/** The vector stored as little-endian float32 `bytes`: how vectors were stored before half precision (records with `v: 1`). */
export function vectorFromFloatBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/**
 * `vector` with each number rounded to the nearest float16 (about three significant digits;
 * cosines move by about 1e-4). L4 keeps its vectors so, in memory and in the index as on disk:
 * 2 bytes a number instead of 4, so LMDB's 4 KB pages hold three 384-number vectors instead of
 * one, and an index rebuilt from the stored vectors is the one that was lost.
 */
export function halfPrecision(vector: Float32Array): Float32Array {
  return vector.map((x) => fromHalf(toHalf(x)));
}

const floatView = new DataView(new ArrayBuffer(4));

/** The float16 bits nearest `x` (round half to even; beyond the largest float16, infinity; NaN stays NaN). */
function toHalf(x: number): number {
  floatView.setFloat32(0, x);
  const bits = floatView.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    // Subnormal (or zero): the implicit 1 joins the mantissa, shifted into place with rounding.
    if (halfExponent < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - halfExponent;
    return sign | roundShift(full, shift);
  }
  // The carry of rounding may step into the exponent, which is the right result (up to infinity).
  return sign | ((halfExponent << 10) + roundShift(mantissa, 13));
}

/** `value >> shift`, rounded half to even. */
function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
}

/** The number float16 `bits` stand for. */
function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : Number.NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

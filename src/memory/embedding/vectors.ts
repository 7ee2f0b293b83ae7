/** Vector arithmetic L4 needs, on the unit vectors embedders return. */

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

/** A vector as the little-endian float32 bytes it is stored as (a copy: lmdb keeps what it is given). */
export function vectorBytes(vector: Float32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] ?? 0, true);
  return bytes;
}

/** The vector stored as `bytes` (read from a copy: lmdb may reuse the buffer it hands out). */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

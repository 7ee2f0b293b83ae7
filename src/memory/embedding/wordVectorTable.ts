import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { TroupeError } from '../../errors.js';

/**
 * A table of word vectors in troupe's compact file format: the words most frequent first, each
 * with a vector quantised to signed bytes and its own scale, so 50,000 words of 100 dimensions
 * take 5.6 MB instead of the 20 MB of 32-bit floats, at a cosine error under 0.01.
 *
 * Layout, little-endian: the magic `TRWV1`, the word count and the dimension (u32 each), then per
 * word its scale (f32) and its `dimension` bytes, then the words in UTF-8 separated by newlines.
 */
export interface WordVectorTable {
  readonly dimension: number;
  /** The row of each word; a lower row is a more frequent word. */
  readonly rows: ReadonlyMap<string, number>;
  /** Adds `weight` times the vector of `row` to `into`. */
  addTo(into: Float32Array, row: number, weight: number): void;
}

const magic = 'TRWV1';
const headerBytes = magic.length + 8;

/** The most dimensions a table's vectors may have (an embedder's vector holds them beside the n-grams'). */
const maxWordDimension = 4096;

/** How large a table may be: a file past either is refused before it is read whole. */
export interface WordVectorBounds {
  /** Bytes of the file. */
  readonly maxBytes: number;
  /** Words (rows) it holds. */
  readonly maxWords: number;
}

/** Encodes `words` and their `vectors` (row-major, `dimension` floats a word) in the table's format. */
export function encodeWordVectors(words: readonly string[], vectors: Float32Array, dimension: number): Buffer {
  const rowBytes = 4 + dimension;
  const body = Buffer.alloc(headerBytes + words.length * rowBytes);
  body.write(magic, 0, 'latin1');
  body.writeUInt32LE(words.length, magic.length);
  body.writeUInt32LE(dimension, magic.length + 4);
  words.forEach((_, row) => {
    const at = headerBytes + row * rowBytes;
    let largest = 0;
    for (let d = 0; d < dimension; d++) largest = Math.max(largest, Math.abs(vectors[row * dimension + d] ?? 0));
    const scale = largest / 127 || 1;
    body.writeFloatLE(scale, at);
    for (let d = 0; d < dimension; d++) body.writeInt8(Math.round((vectors[row * dimension + d] ?? 0) / scale), at + 4 + d);
  });
  return Buffer.concat([body, Buffer.from(words.join('\n'), 'utf8')]);
}

/** Reads a table written by `encodeWordVectors`; a file of another shape is refused, naming it. */
function decodeWordVectors(bytes: Buffer, source: string): WordVectorTable {
  const bad = (why: string): never => {
    throw new TroupeError('invalid_input', `word vector table ${source}: ${why}`);
  };
  if (bytes.length < headerBytes || bytes.toString('latin1', 0, magic.length) !== magic) bad(`not a ${magic} file`);
  const count = bytes.readUInt32LE(magic.length);
  const dimension = bytes.readUInt32LE(magic.length + 4);
  const rowBytes = 4 + dimension;
  const wordsAt = headerBytes + count * rowBytes;
  if (dimension === 0 || wordsAt > bytes.length) bad(`${count} words of ${dimension} dimensions do not fit in ${bytes.length} bytes`);
  const words = bytes.toString('utf8', wordsAt).split('\n');
  if (words.length !== count) bad(`holds ${words.length} words, its header says ${count}`);
  const scales = new Float32Array(count);
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let row = 0; row < count; row++) scales[row] = bytes.readFloatLE(headerBytes + row * rowBytes);
  return {
    dimension,
    rows: new Map(words.map((word, row) => [word, row])),
    addTo(into, row, weight) {
      const at = headerBytes + row * rowBytes + 4;
      const scaled = weight * (scales[row] as number);
      for (let d = 0; d < dimension; d++) into[d] = (into[d] as number) + scaled * (values[at + d] as number);
    },
  };
}

/**
 * Reads the table at `path` (see decodeWordVectors), refusing one past `bounds` (or of more than
 * `maxWordDimension` dimensions) from its size and header, before the rest of it is read.
 */
export function readWordVectors(path: string, bounds: WordVectorBounds): WordVectorTable {
  const refuse = (why: string): never => {
    throw new TroupeError('invalid_input', `word vector table ${path}: ${why}`, { context: { path } });
  };
  const { size } = statSync(path);
  if (size > bounds.maxBytes) refuse(`${size} bytes, more than maxTableBytes (${bounds.maxBytes})`);
  const header = Buffer.alloc(headerBytes);
  const file = openSync(path, 'r');
  try {
    readSync(file, header, 0, headerBytes, 0);
  } finally {
    closeSync(file);
  }
  if (header.toString('latin1', 0, magic.length) === magic) {
    const count = header.readUInt32LE(magic.length);
    const dimension = header.readUInt32LE(magic.length + 4);
    if (count > bounds.maxWords) refuse(`${count} words, more than maxTableWords (${bounds.maxWords})`);
    if (dimension > maxWordDimension) refuse(`vectors of ${dimension} dimensions, more than ${maxWordDimension}`);
  }
  return decodeWordVectors(readFileSync(path), path);
}

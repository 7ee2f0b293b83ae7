/**
 * The offline text embedding: a deterministic vector computed from the text alone, with no model
 * and no download. Used by the offline embedder of L4 memory (`HashedNgramEmbedder`), the offline
 * and scripted models' `embed`, and the local OpenAI-compatible test server, so all three give the
 * same vector for the same text and dimension. Lives at the root because those sit in sibling
 * layers (memory, llm) that may not import each other.
 *
 * Features (what makes two texts close):
 * - word unigrams: the words the texts share;
 * - word bigrams: the word order they share ("dark mode" is not "mode dark");
 * - character 3- to 5-grams of each word padded with spaces: inflections and typos
 *   ("prefers" ~ "preferred", "colour" ~ "color").
 * Each feature counts `1 + ln(tf)` (sub-linear: a word said five times is not five times the
 * topic), is hashed into one of `dimension` buckets with a sign from another bit of the hash (so
 * collisions cancel on average instead of piling up), and each family is normalised on its own
 * before they are weighted together, so long words' many n-grams do not drown the words.
 */

/** Names the scheme; any change to what it computes must change this (stored vectors would no longer match). */
export const hashedNgramScheme = 'hashed-ngram-v1';

/** The dimension used when none is given: 384, as small sentence-embedding models have. */
export const defaultHashedNgramDimension = 384;

/** How much each feature family weighs in the final vector. */
const familyWeights = { words: 0.55, bigrams: 0.3, chars: 0.55 } as const;

type Family = keyof typeof familyWeights;

/** A different seed per family, so a word and a 3-gram with the same spelling land in different buckets. */
const familySeeds: Record<Family, number> = { words: 0x9e3779b1, bigrams: 0x85ebca6b, chars: 0xc2b2ae35 };

const minCharGram = 3;
const maxCharGram = 5;

/**
 * The unit-length hashed n-gram vector of `text` in `dimension` dimensions. A text with no letter
 * or digit falls back to its raw characters' n-grams; the empty text gets a fixed unit vector, so
 * every text has a vector of length 1.
 */
export function hashedNgramVector(text: string, dimension: number): Float32Array {
  const words = wordsOf(text);
  const counts: Record<Family, Map<string, number>> = { words: new Map(), bigrams: new Map(), chars: new Map() };
  const pieces = words.length > 0 ? words : text.trim() === '' ? [] : [text.trim()];
  for (let i = 0; i < pieces.length; i++) {
    const word = pieces[i] ?? '';
    count(counts.words, word);
    if (i > 0) count(counts.bigrams, `${pieces[i - 1] ?? ''} ${word}`);
    const padded = ` ${word} `;
    for (let n = minCharGram; n <= maxCharGram; n++) {
      for (let start = 0; start + n <= padded.length; start++) count(counts.chars, padded.slice(start, start + n));
    }
  }
  const vector = new Float32Array(dimension);
  for (const family of Object.keys(counts) as Family[]) addFamily(vector, counts[family], familySeeds[family], familyWeights[family]);
  if (!normalise(vector)) vector[0] = 1;
  return vector;
}

/** Lower-cased words (letters and digits), after Unicode compatibility folding. */
function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function count(counts: Map<string, number>, feature: string): void {
  counts.set(feature, (counts.get(feature) ?? 0) + 1);
}

/** Adds one family's signed, sub-linear counts to `vector`, scaled so the family has length `weight`. */
function addFamily(vector: Float32Array, counts: ReadonlyMap<string, number>, seed: number, weight: number): void {
  if (counts.size === 0) return;
  const part = new Float64Array(vector.length);
  for (const [feature, tf] of counts) {
    const hash = murmurHash3(feature, seed);
    const bucket = hash % vector.length;
    part[bucket] = (part[bucket] ?? 0) + (hash & 0x80000000 ? -1 : 1) * (1 + Math.log(tf));
  }
  let squares = 0;
  for (const value of part) squares += value * value;
  if (squares === 0) return;
  const scale = weight / Math.sqrt(squares);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) + (part[i] ?? 0) * scale;
}

/** Scales `vector` to length 1 in place; false when it is all zeros. */
function normalise(vector: Float32Array): boolean {
  let squares = 0;
  for (const value of vector) squares += value * value;
  if (squares === 0) return false;
  const scale = 1 / Math.sqrt(squares);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) * scale;
  return true;
}

/** MurmurHash3's mixing (x86, 32-bit), one UTF-16 code unit per block: well mixed, so bucket and sign bits are independent. */
function murmurHash3(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    hash ^= k;
    hash = Math.imul((hash << 13) | (hash >>> 19), 5) + 0xe6546b64;
  }
  hash ^= text.length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

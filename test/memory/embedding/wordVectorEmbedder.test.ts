import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';
import { ValidationError } from '../../../src/errors.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { cosine } from '../../../src/memory/embedding/vectors.js';
import { WordVectorEmbedder } from '../../../src/memory/embedding/wordVectorEmbedder.js';
import { encodeWordVectors } from '../../../src/memory/embedding/wordVectorTable.js';

const words = new WordVectorEmbedder();
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function nearest(embedder: WordVectorEmbedder | HashedNgramEmbedder, query: string, texts: readonly string[]): Promise<string> {
  const [q, ...vectors] = await embedder.embed([query, ...texts]);
  const scored = vectors.map((vector, i) => ({ text: texts[i] ?? '', score: cosine(q ?? [], vector) }));
  return scored.sort((a, b) => b.score - a.score)[0]?.text ?? '';
}

// Questions that share no word with the sentence that answers them, beside a sentence that shares
// one but is about something else: only an embedder that knows what words mean finds the answer.
const byMeaning = [
  { question: 'What is her job?', answer: 'She works as a nurse at the city hospital.', decoy: 'What is her favourite colour?' },
  { question: 'Which city does he live in?', answer: 'He moved to Lisbon in the spring.', decoy: 'Which team does he support?' },
  { question: 'Does she have a pet?', answer: 'Her dog barks at the postman every morning.', decoy: 'Does she have a car?' },
  { question: 'What is his occupation?', answer: 'He was hired as a carpenter last spring.', decoy: 'What is his favourite film?' },
  { question: 'What sport does he play?', answer: 'He plays football every Sunday with friends.', decoy: 'What music does he like?' },
] as const;

describe('WordVectorEmbedder', () => {
  it('finds the sentence that answers a question in other words, where the hashed n-grams find the decoy', async () => {
    const hashed = new HashedNgramEmbedder();
    for (const { question, answer, decoy } of byMeaning) {
      expect(await nearest(words, question, [decoy, answer])).toBe(answer);
      expect(await nearest(hashed, question, [decoy, answer])).toBe(decoy);
    }
  });

  it('keeps names apart, which word vectors alone would blur', async () => {
    expect(await nearest(words, 'Where does Priya live?', ['Tomas moved to Ghent.', 'Priya moved to Ghent.'])).toBe('Priya moved to Ghent.');
  });

  it('gives every text a deterministic vector of length 1, words it does not know and the empty text included', async () => {
    const texts = ['The cat sat on the mat.', 'zxqv blorptang 42', '', '!!!', 'the of and'];
    const [first, again] = [await words.embed(texts), await new WordVectorEmbedder().embed(texts)];
    for (const [i, vector] of first.entries()) {
      expect(vector).toHaveLength(words.dimension);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
      expect(Array.from(vector)).toEqual(Array.from(again[i] ?? []));
    }
  });

  it('refuses options out of range, naming them', () => {
    expect(() => new WordVectorEmbedder({ wordShare: 1 })).toThrow(ValidationError);
    expect(() => new WordVectorEmbedder({ wordShare: 1 })).toThrow(/wordShare/);
    expect(() => new WordVectorEmbedder({ hashedDimension: 8 })).toThrow(/hashedDimension/);
  });

  it('reads a table of its own format, and refuses a damaged one naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-word-vectors-'));
    dirs.push(dir);
    const table = join(dir, 'tiny.trwv');
    await writeFile(table, encodeWordVectors(['cat', 'dog', 'car'], new Float32Array([1, 0, 0.9, 0.1, 0, 1]), 2));
    const tiny = new WordVectorEmbedder({ table, hashedDimension: 16, wordShare: 0.9 });
    expect(tiny.dimension).toBe(18);
    expect(tiny.id).not.toBe(words.id);
    const [cat, dog, car] = await tiny.embed(['cat', 'dog', 'car']);
    expect(cosine(cat ?? [], dog ?? [])).toBeGreaterThan(cosine(cat ?? [], car ?? []));

    const damaged = join(dir, 'damaged.trwv');
    await writeFile(damaged, Buffer.from('TRWV1\u0010\u0000\u0000\u0000\u0002\u0000\u0000\u0000abc', 'latin1'));
    expect(() => new WordVectorEmbedder({ table: damaged })).toThrow(new RegExp(`word vector table ${damaged}: 16 words of 2 dimensions do not fit`));
    const other = join(dir, 'other.trwv');
    await writeFile(other, 'hello');
    expect(() => new WordVectorEmbedder({ table: other })).toThrow(/not a TRWV1 file/);

    // Bounded: a table past its bytes, words or dimensions is refused from its size and header, before it is read.
    expect(() => new WordVectorEmbedder({ table, maxTableBytes: 20 })).toThrow(
      new RegExp(`word vector table ${table}: \\d+ bytes, more than maxTableBytes \\(20\\)`),
    );
    expect(() => new WordVectorEmbedder({ table, maxTableWords: 2 })).toThrow(/3 words, more than maxTableWords \(2\)/);
    const wide = join(dir, 'wide.trwv');
    await writeFile(wide, Buffer.from('TRWV1\u0001\u0000\u0000\u0000\u0000\u0000\u0001\u0000', 'latin1'));
    expect(() => new WordVectorEmbedder({ table: wide })).toThrow(/vectors of 65536 dimensions, more than 4096/);
    expect(() => new WordVectorEmbedder({ maxTableBytes: 0 })).toThrow(/maxTableBytes/);
  });

  it("serves as an agent's memory embedder: a remembered fact is found by a question in other words", async () => {
    const rt = await createRuntime({ memory: { embedder: new WordVectorEmbedder() } });
    try {
      await rt.remember('root', { text: 'We adopted a kitten called Mochi last weekend.' });
      await rt.remember('root', { text: 'The quarterly report is due on Friday.' });
      const found = await rt.memory('root', { search: 'What pet does the user have?', k: 1 });
      expect(found.entries[0]?.text).toBe('We adopted a kitten called Mochi last weekend.');
    } finally {
      await rt.shutdown();
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { cosine } from '../../../src/memory/embedding/vectors.js';
import { loggedSeed } from '../../support/loggedSeed.js';

const embedder = new HashedNgramEmbedder();

/** Pairs that say the same thing in other words, and sentences about something else entirely. */
const paraphrases: readonly (readonly [string, string])[] = [
  ['The user prefers dark mode in the editor.', 'The user prefers the editor in dark mode.'],
  ['Alice lives in Lisbon and works as a nurse.', 'Alice is a nurse who lives in Lisbon.'],
  ['The deployment failed because the database password expired.', 'Deploy failed: the database password had expired.'],
  ['Meetings with the design team happen every Tuesday at 10am.', 'The design team meets on Tuesdays at 10am.'],
  ['The invoice for March was paid late by the customer.', 'The customer paid the March invoice late.'],
];
const unrelated: readonly string[] = [
  'The quarterly revenue grew by twelve percent.',
  'The build uses TypeScript and runs on Node 20.',
  'Bob likes hiking in the mountains on weekends.',
  'Photosynthesis turns sunlight into chemical energy.',
];

async function similarity(a: string, b: string): Promise<number> {
  const [x, y] = await embedder.embed([a, b]);
  return cosine(x ?? [], y ?? []);
}

describe('HashedNgramEmbedder', () => {
  it('names its scheme and dimension, 384 by default', () => {
    expect(embedder).toMatchObject({ id: 'hashed-ngram-v1-384', dimension: 384 });
    expect(new HashedNgramEmbedder({ dimension: 64 })).toMatchObject({ id: 'hashed-ngram-v1-64', dimension: 64 });
  });

  it('refuses a dimension it cannot use, naming the option', () => {
    for (const dimension of [0, 8, 1.5, 5000, Number.NaN]) {
      expect(() => new HashedNgramEmbedder({ dimension })).toThrow(ValidationError);
      expect(() => new HashedNgramEmbedder({ dimension })).toThrow(/HashedNgramEmbedder\.dimension/);
    }
  });

  it('gives paraphrases a clearly higher cosine than unrelated sentences', async () => {
    let lowestParaphrase = 1;
    for (const [a, b] of paraphrases) lowestParaphrase = Math.min(lowestParaphrase, await similarity(a, b));
    let highestUnrelated = -1;
    for (const [a] of paraphrases) for (const other of unrelated) highestUnrelated = Math.max(highestUnrelated, await similarity(a, other));
    expect(lowestParaphrase).toBeGreaterThan(0.5);
    expect(highestUnrelated).toBeLessThan(0.3);
    expect(lowestParaphrase - highestUnrelated).toBeGreaterThan(0.25);
  });

  it('is deterministic and gives every text, empty or without words, a unit vector', async () => {
    const other = new HashedNgramEmbedder();
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300, unit: 'grapheme' }), async (text) => {
        const [first] = await embedder.embed([text]);
        const [again] = await other.embed([text]);
        expect(first).toEqual(again);
        expect(first).toHaveLength(384);
        expect(Math.abs(cosine(first ?? [], first ?? []) - 1)).toBeLessThan(1e-5);
        let squares = 0;
        for (const value of first ?? []) squares += value * value;
        expect(Math.abs(squares - 1)).toBeLessThan(1e-5);
      }),
      loggedSeed('hashed n-gram vectors'),
    );
  });

  it('embeds a batch in order', async () => {
    const texts = ['one fact', 'another fact', ''];
    const batch = await embedder.embed(texts);
    for (const [index, text] of texts.entries()) expect(batch[index]).toEqual((await embedder.embed([text]))[0]);
  });
});

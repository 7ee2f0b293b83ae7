import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from '../../../src/llm/index.js';
import { startOpenAICompatibleServer } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { compactorHarness, untilIdle } from '../../support/compactorFixture.js';
import { fact } from '../../support/factStoreFixture.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

// The compactor and L4: compression in a batch when an agent's facts are above their threshold
// (an L4 opened with a lower compressAbove than it was filled with: adds never pass it), a
// compression that cannot shrink them not tried again until there are more, a failure logged
// with the agent's id, and the index files saved when the compactor drains.

const world = compactorHarness();
const later = cleanupAfterEach();

/** Three wordings of one fact (pairwise cosine 0.92–0.98 with the offline embedder) and two unrelated ones. */
const darkMode = ['The user prefers dark mode in the editor.', 'The user prefers dark mode in the code editor.', 'In the editor, the user prefers dark mode.'];
const unrelated = ['Alice lives in Lisbon and works as a nurse.', 'The build uses TypeScript and runs on Node 20.'];

describe('the memory compactor and L4', () => {
  it('compresses an agent’s facts above compressAbove in its batch: without an embedder, down to keepTopN', async () => {
    const { openFilled, start } = await world();
    const memory = await openFilled('a1', { embedder: null, factLimits: { mergeThreshold: 1, compressAbove: 4, keepTopN: 2 } }, async (filling) => {
      for (const [i, text] of [...darkMode, ...unrelated, 'Bob has a red bicycle.'].entries()) await filling.remember(fact(text, { importance: i / 10 }));
    });
    expect(memory.factsNeedCompression()).toBe(true);
    const compactor = start();
    compactor.due('a1');
    await untilIdle(compactor);
    expect(memory.counts().l4).toBe(2);
    expect(memory.factsNeedCompression()).toBe(false);
  });

  it('merges clusters with an embedder; what merging leaves above keepTopN (clusters kept for fidelity, distinct facts) is cut to keepTopN by importance', async () => {
    const { openFilled, start, logger } = await world();
    const limits = { mergeThreshold: 1, compressAbove: 4, keepTopN: 2 };
    const texts = [...darkMode, ...unrelated];
    const merging = await openFilled('a1', { factLimits: limits }, async (filling) => {
      for (const text of texts) await filling.remember(fact(text));
    });
    const faithful = await openFilled('a2', { factLimits: { ...limits, fidelityThreshold: 0.999 } }, async (filling) => {
      for (const [i, text] of texts.entries()) await filling.remember(fact(text, { importance: i / 10 }));
    });
    const compactor = start();
    compactor.due('a1');
    compactor.due('a2');
    await untilIdle(compactor);
    // The cluster merged (5 → 3), then the least important went down to keepTopN.
    expect(merging.counts().l4).toBe(2);
    // No cluster passed its fidelity check: the two most important facts stay.
    expect(faithful.facts().map((kept) => kept.text)).toEqual(unrelated);
    const compressed = logger.entries
      .filter((entry) => /L4 compressed/.test(entry.message))
      .map((entry) => entry.fields)
      .sort((a, b) => String(a['agentId']).localeCompare(String(b['agentId'])));
    expect(compressed).toEqual([
      expect.objectContaining({ agentId: 'a1', merged: 1, dropped: 1, after: 2 }),
      expect.objectContaining({ agentId: 'a2', keptForFidelity: 1, dropped: 3, after: 2 }),
    ]);
  });

  it('has no compression to do for an L4 filled through adds: each add that finds it full makes room itself, and it never passes compressAbove', async () => {
    const { open, start, logger } = await world();
    const memory = await open('a1', { factLimits: { mergeThreshold: 1, compressAbove: 20, keepTopN: 15 } });
    // Facts far apart: no cluster forms, so making room drops the least important.
    const people = ['Alice', 'Bob', 'Carla', 'Dmitri', 'Eve', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kemal', 'Lena'];
    const things = ['violin', 'kayak', 'greenhouse', 'telescope', 'bakery', 'motorbike', 'aquarium', 'library', 'vineyard', 'sawmill', 'chessboard'];
    const texts = Array.from({ length: 23 }, (_, i) => `${people[i % people.length] ?? ''} owns a ${things[i % things.length] ?? ''} number ${i * 7919}.`);
    const sizes: number[] = [];
    for (const text of texts) {
      await memory.remember(fact(text));
      sizes.push(memory.counts().l4);
    }
    // The 21st add found 20 and made room down to 15: 16, then 17, 18.
    expect(sizes.slice(18)).toEqual([19, 20, 16, 17, 18]);
    expect(memory.factsNeedCompression()).toBe(false);
    const compactor = start();
    compactor.due('a1');
    await untilIdle(compactor);
    expect(memory.counts().l4).toBe(18);
    expect(logger.entries.filter((entry) => entry.message === 'L4 compressed')).toEqual([]);
    expect(logger.entries.filter((entry) => entry.message === 'L4 compressed to make room for adds').map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ agentId: 'a1', dropped: 5, before: 20, after: 15 }),
    ]);
  });

  it('logs a failure with the agent’s id and goes on with the other agents and later batches', async () => {
    const server = await startOpenAICompatibleServer();
    later(() => server.close());
    const embedder = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'test-embed', dimension: 384, retry: false });
    const { openFilled, start, logger } = await world();
    const failing = await openFilled('a1', { embedder, factLimits: { mergeThreshold: 1, compressAbove: 4, keepTopN: 2 } }, async (filling) => {
      for (const text of [...darkMode, ...unrelated]) await filling.remember(fact(text));
    });
    // Without an embedder, two wordings with the same words are one fact: 4 facts, above 3.
    const fine = await openFilled('a2', { embedder: null, factLimits: { mergeThreshold: 1, compressAbove: 3, keepTopN: 2 } }, async (filling) => {
      for (const text of [...darkMode, ...unrelated]) await filling.remember(fact(text));
    });
    // The merged texts are embedded during compression: that call fails.
    server.scriptEmbeddings({ status: 500, message: 'the GPU fell over' });
    const compactor = start({ options: { compactionConcurrency: 1 } });
    compactor.due('a1');
    compactor.due('a2');
    await untilIdle(compactor);
    const errors = logger.entries.filter((entry) => entry.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        fields: { agentId: 'a1', error: expect.stringMatching(/the GPU fell over/) as unknown },
        message: expect.stringMatching(/failed/) as unknown,
      }),
    ]);
    expect(fine.counts().l4).toBe(2);
    expect(failing.counts().l4).toBe(5);
    // The next memory.due compresses it: the server answers again.
    compactor.due('a1');
    await untilIdle(compactor);
    expect(failing.counts().l4).toBe(2);
    expect(compactor.actor.getSnapshot().value).toBe('running');
  });

  itWithHnswlib('saves the memories’ index files when it drains, while they stay open', async () => {
    const { open, start, indexDir } = await world();
    const memory = await open('a1');
    for (const text of unrelated) await memory.remember(fact(text));
    const before = await readdir(indexDir).catch(() => []);
    expect(before).toEqual([]);
    await start().drain();
    expect((await readdir(indexDir)).sort()).toEqual([
      expect.stringMatching(/^a1\.[0-9a-f]{12}\.hnsw$/),
      expect.stringMatching(/^a1\.[0-9a-f]{12}\.hnsw\.json$/),
    ]);
    expect(memory.isClosed()).toBe(false);
    expect(await memory.search('Lisbon', 1, { sessionId: 's1' })).toHaveLength(1);
  });
});

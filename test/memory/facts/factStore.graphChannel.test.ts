import { describe, expect, it } from 'vitest';
import { openGraphMemory } from '../../../src/graph/index.js';
import type { FactHit } from '../../../src/memory/facts/factStore.js';
import { HashedNgramEmbedder } from '../../../src/memory/embedding/hashedNgramEmbedder.js';
import { limitsOf } from '../../../src/memory/facts/factLimits.js';
import { indexParams } from '../../../src/memory/facts/loadFacts.js';
import { GraphRetrieval } from '../../../src/runtime/memory/graphRetrieval.js';
import { NodeVectors } from '../../../src/runtime/memory/nodeVectors.js';
import { silentLogger } from '../../../src/logger.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';

// The graph channel of hybrid retrieval and the re-rank after fusion: on real LMDB in temp dirs,
// the default offline embedder with hnswlib, and a real graph memory in the same environment.

const { place, openStore } = factHarness();

/** A fact store and the agent's graph, both in one temp LMDB environment. */
async function storeAndGraph(limits: Record<string, number> = {}) {
  const where = await place();
  const { store } = await openStore(where, { limits });
  const memory = await openGraphMemory({ db: where.db, ownerId: 'root', clock: new SimulatedClock(2_000_000) });
  return { store, memory, graph: new GraphRetrieval(memory) };
}

const texts = (hits: readonly FactHit[]): string[] => hits.map((hit) => hit.fact.text);

describe('the graph channel', () => {
  it('returns a note only an edge from a keyword hit reaches, saying the graph channel found it', async () => {
    const { store, memory, graph } = await storeAndGraph();
    await store.add(fact('The staging server listens on port 8080.', { sessionId: null }));
    const incident = await memory.addEvent({ content: 'Investigate incident QX7731 on the payment queue' });
    const fix = await memory.addNote({ title: 'fix', content: 'Raising the worker pool to twelve cured it.' });
    await memory.link({ from: incident.id, to: fix.id, type: 'produces' });
    const hits = await store.search('what happened with QX7731?', 5, { sessionId: null, graph });
    const found = hits.find((hit) => hit.fact.id === fix.id);
    expect(hits[0]?.fact.id).toBe(incident.id);
    expect(hits[0]?.node).toEqual({ kind: 'event' });
    expect(found?.node).toEqual({ kind: 'note' });
    expect(found?.channels.graph).toBeGreaterThan(0);
    expect(found?.channels.bm25).toBeNull();
    // Without the graph channel, the note shares nothing with the question and is not found.
    expect(texts(await store.search('what happened with QX7731?', 5, { sessionId: null }))).not.toContain('fix: Raising the worker pool to twelve cured it.');
  });

  it('never reaches a node or fact of another session, nor passes through one', async () => {
    const { store, memory, graph } = await storeAndGraph({ graphDepth: 2 });
    const incident = await memory.addEvent({ content: 'Incident QX7731 review', sessionId: null });
    const mine = await memory.addNote({ content: 'Session one found the root cause in the cache.', sessionId: 's1' });
    const theirs = await memory.addNote({ content: 'Session two blamed the load balancer.', sessionId: 's2' });
    const beyond = await memory.addNote({ content: 'A note only the other session links to.', sessionId: null });
    await memory.linkMany([
      { from: incident.id, to: mine.id, type: 'produces' },
      { from: incident.id, to: theirs.id, type: 'produces' },
      { from: theirs.id, to: beyond.id, type: 'references' },
    ]);
    const ids = (await store.search('QX7731', 10, { sessionId: 's1', graph })).map((hit) => hit.fact.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    // Two links away, but only through the other session's note.
    expect(ids).not.toContain(beyond.id);
    const fromS2 = (await store.search('QX7731', 10, { sessionId: 's2', graph })).map((hit) => hit.fact.id);
    expect(fromS2).toContain(theirs.id);
    expect(fromS2).not.toContain(mine.id);
    expect(fromS2).toContain(beyond.id);
  });

  it('adds at most graphNodes hits, and none with graphNodes 0', async () => {
    const { store, memory, graph } = await storeAndGraph({ graphNodes: 2 });
    const incident = await memory.addEvent({ content: 'Incident QX7731' });
    for (let i = 0; i < 6; i++) {
      const note = await memory.addNote({ content: `Finding number ${i} of the review.` });
      await memory.link({ from: incident.id, to: note.id, type: 'produces' });
    }
    const hits = await store.search('QX7731', 20, { sessionId: null, graph });
    expect(hits.filter((hit) => hit.channels.graph !== null && hit.channels.bm25 === null)).toHaveLength(2);
    const { store: off, graph: offGraph, memory: offMemory } = await storeAndGraph({ graphNodes: 0 });
    const event = await offMemory.addEvent({ content: 'Incident QX7731' });
    const note = await offMemory.addNote({ content: 'Finding of the review.' });
    await offMemory.link({ from: event.id, to: note.id, type: 'produces' });
    expect((await off.search('QX7731', 20, { sessionId: null, graph: offGraph })).map((hit) => hit.fact.id)).toEqual([event.id]);
  });

  it("brings in a conversation turn's neighbour that shares no word with the question", async () => {
    const { store } = await storeAndGraph();
    const turn = (text: string, at: number) => ({
      fact: { text, scope: 'agent', sessionId: null, importance: 0.5, metadata: { kind: 'turn', conversation: 'c1', at } },
      merge: false,
    });
    await store.addMany([
      turn('Ana: The weather was awful all week.', 1),
      turn('Ben: What name did you give the new puppy?', 2),
      turn('Ana: Biscuit, after my grandmother.', 3),
      turn('Ben: I finished the novel you lent me.', 4),
    ]);
    const hits = await store.search('name of the puppy', 5, { sessionId: null, minSimilarity: 0.15 });
    const answer = hits.find((hit) => hit.fact.text.startsWith('Ana: Biscuit'));
    expect(hits[0]?.fact.text).toContain('puppy');
    expect(answer?.channels.graph).toBeGreaterThan(0);
    expect(answer?.channels.bm25).toBeNull();
  });
});

describe("the nodes' vectors", () => {
  it('finds a node by its vector that shares no search term with the question, and gives a node hit its cosine', async () => {
    const { store, memory } = await storeAndGraph();
    const embedder = new HashedNgramEmbedder();
    const graph = new GraphRetrieval(memory, new NodeVectors({ embedder, params: indexParams(embedder.dimension, limitsOf({})), logger: silentLogger }));
    await store.add(fact('The staging server listens on port 8080.', { sessionId: null }));
    const note = await memory.addNote({ content: 'Kubernetes deployment of the ledger' });
    await memory.addNote({ content: 'Lunch order for Friday', sessionId: 'other' });
    await graph.ready();
    const hits = await store.search('redeploying', 5, { sessionId: null, graph });
    const found = hits.find((hit) => hit.fact.id === note.id);
    expect(found?.channels.bm25).toBeNull();
    expect(found?.channels.vector).toBeGreaterThan(0.1);
    expect(found?.similarity).toBe(found?.channels.vector);
    // Without vectors the node shares no term with the question and is not found.
    expect((await store.search('redeploying', 5, { sessionId: null, graph: new GraphRetrieval(memory) })).map((hit) => hit.fact.id)).not.toContain(note.id);
    // Another session's node is not found by its vector either.
    expect(texts(await store.search('lunch orders', 5, { sessionId: 'mine', graph }))).not.toContain('Lunch order for Friday');
  });
});

describe('the re-rank after fusion', () => {
  const day = 24 * 3_600_000;
  const noWeights = { importanceWeight: 0, recencyWeight: 0, linkWeight: 0 };

  /** Two turns of the same words (scored alike by both channels, so fused alike), as `[importance, at]` each; the ids in the order a search returns them. */
  async function twins(first: [number, number], second: [number, number], limits: Record<string, number>): Promise<string[]> {
    const { store } = await storeAndGraph({ graphNodes: 0, ...limits });
    const said = ([importance, at]: [number, number]) => ({
      fact: { text: 'Maya moved to Lisbon last spring.', scope: 'agent', sessionId: null, importance, metadata: { at } },
      merge: false,
    });
    await store.addMany([said(first), said(second)]);
    return (await store.search('Where does Maya live?', 2, { sessionId: null })).map((hit) => hit.fact.id);
  }

  it('puts the more important of two equal matches first by importanceWeight', async () => {
    expect(await twins([0.1, day], [0.9, day], noWeights)).toEqual(['f0', 'f1']);
    expect(await twins([0.1, day], [0.9, day], { ...noWeights, importanceWeight: 0.5 })).toEqual(['f1', 'f0']);
  });

  it('puts the newer of two equal matches first by recencyWeight', async () => {
    expect(await twins([0.5, day], [0.5, 90 * day], noWeights)).toEqual(['f0', 'f1']);
    expect(await twins([0.5, day], [0.5, 90 * day], { ...noWeights, recencyWeight: 0.5 })).toEqual(['f1', 'f0']);
  });
});

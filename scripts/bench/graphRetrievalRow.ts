import type { Database, RootDatabase } from 'lmdb';
import type { GraphMemory } from '../../src/graph/index.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore } from '../../src/memory/facts/factStore.js';
import { seededRandom } from '../../src/random.js';
import { GraphRetrieval } from '../../src/runtime/memory/graphRetrieval.js';
import { NodeVectors } from '../../src/runtime/memory/nodeVectors.js';
import { limitsOf } from '../../src/memory/facts/factLimits.js';
import { indexParams } from '../../src/memory/facts/loadFacts.js';
import { sized } from './benchSize.js';
import type { GeneratedGraph } from './graphShape.js';
import { elapsedMs, percentile } from './measure.js';
import { type Row, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

// Issue 33: hybrid retrieval (the search a turn's context makes: FactStore.peek with the agent's
// graph) over the suite's graph of 100,000 nodes and 300,000 edges and 10,000 facts, a tenth of
// them naming a Task whose event the graph holds: BM25 and hnswlib vectors over facts and nodes,
// the graph channel from the best hits and the re-rank. Beside it, the floor: plain
// lmdb reads of the records of the hits it returned.

const FACTS = sized(10_000, 100);
const QUERIES = sized(2_000, 20);
const RETRIEVE = 8;
const topics = ['deploy', 'invoice', 'review', 'migration', 'report', 'backup', 'outage', 'release', 'survey', 'budget', 'onboarding', 'audit'];
const people = ['Ana', 'Ben', 'Chloé', 'Dev', 'Eli', 'Fay'];

/** An agent's L4 of `FACTS` facts in `root` (records in its `memory-*` sub-dbs), every vector in the index. */
async function factsOf(root: RootDatabase, ownerId: string, graph: GeneratedGraph): Promise<FactStore> {
  const random = seededRandom(34);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const events = graph.nodes.filter((node) => node.kind === 'event');
  const store = await FactStore.open({
    agentId: ownerId,
    embedder: new HashedNgramEmbedder(),
    db: root,
    indexDir: null,
    logger: silentLogger,
    limits: { compressAbove: FACTS, keepTopN: FACTS },
  });
  const facts = Array.from({ length: FACTS }, (_, i) => {
    const text = `${pick(people)} said the ${pick(topics)} for project ${Math.floor(random() * 500)} needs ${pick(topics)} sign-off by day ${i % 365}.`;
    const metadata = i % 10 === 0 ? { taskIds: [pick(events).id] } : {};
    return { fact: { text, scope: 'agent', sessionId: null, importance: 0.5, metadata }, merge: false };
  });
  await store.addMany(facts);
  await store.flush();
  return store;
}

/** Seeded questions in the words the graph and the facts use, one in four after a note's title. */
function questions(count: number, graph: GeneratedGraph): string[] {
  const random = seededRandom(35);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const notes = graph.nodes.flatMap((node) => (node.kind === 'note' ? [node.title] : []));
  const shapes = [
    () => `What changed in the ${pick(topics)} figures of project ${Math.floor(random() * 500)}?`,
    () => `Who signed off the ${pick(topics)} numbers?`,
    () => `What did ${pick(people)} say about the ${pick(topics)} sign-off?`,
    () => `What was the ${pick(notes)}?`,
  ];
  return Array.from({ length: count }, () => pick(shapes)());
}

/** The hybrid retrieval's p50 and p95 over the suite's graph, against lmdb reads of the records each answer holds. */
export async function hybridRetrievalRow(root: RootDatabase, nodes: Database<unknown>, memory: GraphMemory, graph: GeneratedGraph): Promise<Row> {
  const store = await factsOf(root, memory.ownerId, graph);
  const factRecords = root.openDB<unknown>({ name: 'memory-facts' });
  const embedder = new HashedNgramEmbedder();
  let start = process.hrtime.bigint();
  const retrieval = new GraphRetrieval(memory, new NodeVectors({ embedder, params: indexParams(embedder.dimension, limitsOf({})), logger: silentLogger }));
  // The nodes' vectors are made in the background when a graph is first searched; here every one is in before the timing.
  await retrieval.ready();
  const vectorsMs = elapsedMs(start);
  const troupe: number[] = [];
  const raw: number[] = [];
  let hits = 0;
  let fromGraph = 0;
  try {
    for (const [i, text] of questions(QUERIES + 50, graph).entries()) {
      start = process.hrtime.bigint();
      const found = await store.peek(text, RETRIEVE, { sessionId: null, graph: retrieval });
      const troupeMs = elapsedMs(start);
      start = process.hrtime.bigint();
      for (const hit of found) {
        const record = hit.node === undefined ? factRecords.get([memory.ownerId, hit.fact.id]) : nodes.get([memory.ownerId, hit.fact.id]);
        if (record === undefined) throw new Error(`no record of hit ${hit.fact.id}`);
      }
      const rawMs = elapsedMs(start);
      // The first 50 warm the JIT up.
      if (i < 50) continue;
      troupe.push(troupeMs);
      raw.push(rawMs);
      hits += found.length;
      fromGraph += found.filter((hit) => hit.node !== undefined).length;
    }
  } finally {
    await store.close();
  }
  const p50 = percentile(troupe, 50);
  return {
    benchmark: `hybrid retrieval over the graph and ${FACTS.toLocaleString('en')} facts, k ${RETRIEVE}`,
    troupe: `p50 ${duration(p50)} · p95 ${duration(percentile(troupe, 95))}`,
    raw: `p50 ${duration(percentile(raw, 50))} · p95 ${duration(percentile(raw, 95))}`,
    ratio: p50 / percentile(raw, 50),
    notes:
      `${QUERIES.toLocaleString('en')} seeded questions, ${(hits / QUERIES).toFixed(1)} hits each (${(fromGraph / QUERIES).toFixed(1)} of them nodes); ` +
      `troupe = FactStore.peek with the graph (BM25 and hnswlib vectors over the facts and the nodes, the graph channel, the re-rank); ` +
      `making the nodes' vectors (embedded and indexed in the background when the graph is first searched) took ${(vectorsMs / 1000).toFixed(1)} s; ` +
      `raw = lmdb get of each hit's record; goal p50 ≤ 5 ms: ${p50 <= 5 ? 'met' : 'NOT met'}`,
  };
}

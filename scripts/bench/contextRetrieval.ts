import { openGraphMemory } from '../../src/graph/index.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactKeywordIndex } from '../../src/memory/facts/factKeywordIndex.js';
import { FactStore } from '../../src/memory/facts/factStore.js';
import { seededRandom } from '../../src/random.js';
import { GraphRetrieval } from '../../src/runtime/memory/graphRetrieval.js';
import { NodeVectors } from '../../src/runtime/memory/nodeVectors.js';
import { limitsOf } from '../../src/memory/facts/factLimits.js';
import { indexParams } from '../../src/memory/facts/loadFacts.js';
import { sized } from './benchSize.js';
import { conversation } from './conversationSet.js';
import { compare } from './measure.js';
import { type Row, p50Row } from './report.js';
import { silentLogger } from './silentLogger.js';

// The search a turn's context makes (AgentMemory.recall: FactStore.search with the agent's
// graph), over 10,000 facts imported as a conversation's turns and a graph of notes and events
// linked to them and to each other: BM25, vectors (hnswlib), the graph channel and the re-rank,
// against BM25 alone over the same texts.

const FACTS = sized(10_000, 200);
const NODES = sized(2_000, 40);
const RETRIEVE = 8;

/** A store of FACTS turns (every tenth naming a Task whose event the graph holds) and a graph of NODES nodes, about three edges each. */
async function filled(): Promise<{ store: FactStore; fusionOnly: FactStore; graph: GraphRetrieval; texts: string[]; questions: string[] }> {
  const random = seededRandom(33);
  const talk = conversation(random, Math.ceil(FACTS / 25), 25);
  const texts = talk.turns.slice(0, FACTS).map((turn) => turn.text);
  const memory = await openGraphMemory({ db: null, ownerId: 'bench', limits: { maxNodes: NODES * 2, maxEdges: NODES * 8 } });
  const events: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < NODES; i++) {
    const text = texts[Math.floor(random() * texts.length)] ?? '';
    const node = i % 2 === 0 ? await memory.addEvent({ content: `Follow up: ${text}` }) : await memory.addNote({ title: 'note', content: text });
    if (node.kind === 'event') events.push(node.id);
    const earlier = i === 0 ? [] : [Math.floor(random() * i), Math.floor(random() * i), Math.floor(random() * i)];
    for (const j of new Set(earlier)) {
      const other = memory.graph.node(ids[j] ?? '');
      if (other === undefined || (other.kind === 'event' && node.kind === 'event')) continue;
      await memory.link({ from: node.id, to: other.id, type: 'references' });
    }
    ids.push(node.id);
  }
  const facts = texts.map((text, i) => {
    const task = i % 10 === 0 ? events[Math.floor(random() * events.length)] : undefined;
    const metadata = { kind: 'turn', conversation: 'bench', at: i * 60_000, ...(task === undefined ? {} : { taskIds: [task] }) };
    return { fact: { text, scope: 'agent', sessionId: null, importance: 0.5, metadata }, merge: false };
  });
  const opened = async (limits: object): Promise<FactStore> => {
    const store = await FactStore.open({
      agentId: 'bench',
      embedder: new HashedNgramEmbedder(),
      db: null,
      indexDir: null,
      limits: { compressAbove: FACTS, keepTopN: FACTS, ...limits },
    });
    await store.addMany(facts);
    // Every vector in the index, as between turns of a live agent (an import's wait for spare time).
    await store.flush();
    return store;
  };
  const [store, fusionOnly] = [await opened({}), await opened({ graphNodes: 0, recencyWeight: 0, importanceWeight: 0, linkWeight: 0 })];
  const embedder = new HashedNgramEmbedder();
  const graph = new GraphRetrieval(memory, new NodeVectors({ embedder, params: indexParams(embedder.dimension, limitsOf({})), logger: silentLogger }));
  await graph.ready();
  return { store, fusionOnly, graph, texts, questions: talk.questions.map((question) => question.text) };
}

/** A turn's retrieval with the graph channel, against BM25 alone over the same facts, and against the fusion alone. */
export async function contextRetrievalRows(): Promise<Row[]> {
  const { store, fusionOnly, graph, texts, questions } = await filled();
  const keywords = new FactKeywordIndex();
  texts.forEach((text, i) => keywords.add(`f${i}`, text));
  let next = 0;
  const question = (): string => questions[next++ % questions.length] ?? 'pet';
  const rounds = sized({ warmup: 20, rounds: 300 }, { warmup: 0, rounds: 2 });
  const withGraph = {
    setup: question,
    run: async (text: string) => {
      await store.peek(text, RETRIEVE, { sessionId: null, graph });
    },
  };
  const [troupe, raw] = await compare(withGraph, { setup: question, run: (text) => void keywords.nearest(text, RETRIEVE, () => true) }, rounds);
  const [graphed, fused] = await compare(
    withGraph,
    {
      setup: question,
      run: async (text: string) => {
        await fusionOnly.peek(text, RETRIEVE, { sessionId: null });
      },
    },
    rounds,
  );
  await Promise.all([store.close(), fusionOnly.close()]);
  const hybrid = p50Row(
    `context: a turn's retrieval from ${FACTS.toLocaleString('en')} facts and a graph of ${NODES.toLocaleString('en')} nodes`,
    troupe,
    raw,
    `FactStore.peek (BM25 and hnswlib vectors over facts imported as a conversation's turns and over the nodes, the graph channel from the 5 best hits through turn neighbours, Task events and edges, the re-rank), k ${RETRIEVE}; raw = BM25 alone over the same facts' texts; ratio of p50s`,
  );
  const cost = p50Row(
    'context: the same retrieval against the fusion alone (what the graph channel and re-rank cost)',
    graphed,
    fused,
    'raw = the same store and query with graphNodes 0 and the re-rank weights 0 (BM25 and vectors fused by reciprocal rank, no graph)',
  );
  return [hybrid, cost];
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { Embedder } from '../../src/memory/embedding/embedder.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { cosine } from '../../src/memory/embedding/vectors.js';
import { WordVectorEmbedder } from '../../src/memory/embedding/wordVectorEmbedder.js';
import { FactKeywordIndex } from '../../src/memory/facts/factKeywordIndex.js';
import { FactStore } from '../../src/memory/facts/factStore.js';
import { seededRandom } from '../../src/random.js';
import { sized } from './benchSize.js';
import { type Conversation, type QuestionKind, conversation } from './conversationSet.js';
import { elapsedMs } from './measure.js';
import { type Row, duration } from './report.js';

// Issue point 2: L4's hybrid retrieval (FactStore.peek with its default floors) scored on long
// multi-session conversations made from a seed (see conversationSet.ts): BM25 and vectors fused
// by reciprocal rank alone, and with the graph channel and re-rank on the turns imported as a
// dated conversation (as `rt.importMemory` stores turns), against each channel alone and a random
// ranking: recall@k is the share of a question's evidence turns among the first k hits, averaged
// by question kind. Vectors are the offline hashed n-gram embedder's (the default), compared
// exactly; the last three methods are the same with the word-vector embedder (GloVe, bundled),
// which knows what words mean. The last row times the keyword index's
// rebuild from the facts at open against reading those facts from LMDB, which open does anyway.

const conversations = sized(8, 1);
const sessions = sized(24, 20);
const turnsPerSession = sized(14, 5);
const ks = [5, 10, 25] as const;
const kinds: readonly (QuestionKind | 'overall')[] = ['single-hop', 'multi-hop', 'temporal', 'overall'];
const methods = ['hybrid', 'hybridGraph', 'bm25', 'vectors', 'random', 'hybridWords', 'hybridGraphWords', 'vectorsWords'] as const;
type Method = (typeof methods)[number];

/** BM25 and the vectors fused by reciprocal rank alone: no graph channel, no re-rank (what every search was before them). */
const fusionOnly = { graphNodes: 0, recencyWeight: 0, importanceWeight: 0, linkWeight: 0 };
/** The sessions' dates, as an import of a dated chat history gives them (two weeks apart). */
const sessionStart = Date.UTC(2023, 0, 1);
const sessionGap = 14 * 24 * 3_600_000;

/** `store.peek`'s ranking of the conversation's turns for each question, best first, at most 25. */
async function peekRankings(talk: Conversation, store: FactStore, asTurns: boolean): Promise<Map<string, number[]>> {
  const added = await store.addMany(
    talk.turns.map((turn) => ({
      fact: {
        text: turn.text,
        scope: 'agent',
        sessionId: null,
        importance: 0.5,
        // As `rt.importMemory` stores a turn of a conversation: its neighbours are what the graph channel follows.
        ...(asTurns ? { metadata: { kind: 'turn', conversation: 'bench', at: sessionStart + turn.session * sessionGap } } : {}),
      },
      merge: false,
    })),
  );
  const turnOf = new Map(added.map(({ fact }, i) => [fact.id, i]));
  const found = new Map<string, number[]>();
  for (const question of talk.questions)
    found.set(
      question.text,
      (await store.peek(question.text, 25)).map((hit) => turnOf.get(hit.fact.id) ?? -1),
    );
  await store.close();
  return found;
}

type EmbedderRanking = { hybrid: number[]; hybridGraph: number[]; vectors: number[] };

/** The hybrid ranking without and with the graph channel and re-rank (FactStore.peek) and the vector ranking alone of `embedder`, for each question. */
async function embedderRankings(talk: Conversation, embedder: Embedder): Promise<Map<string, EmbedderRanking>> {
  const plain = await peekRankings(talk, await FactStore.open({ agentId: 'bench', embedder, db: null, indexDir: null, limits: fusionOnly }), false);
  const graph = await peekRankings(talk, await FactStore.open({ agentId: 'bench', embedder, db: null, indexDir: null }), true);
  const vectors = await embedder.embed(talk.turns.map((turn) => turn.text));
  const found = new Map<string, EmbedderRanking>();
  for (const question of talk.questions) {
    const [query] = await embedder.embed([question.text]);
    const byCosine = vectors
      .map((vector, id) => ({ id, similarity: query === undefined ? 0 : cosine(query, vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 25);
    found.set(question.text, {
      hybrid: plain.get(question.text) ?? [],
      hybridGraph: graph.get(question.text) ?? [],
      vectors: byCosine.map((hit) => hit.id),
    });
  }
  return found;
}

/** Each method's ranking of a conversation's turn ids for a question, best first, at most 25. */
async function rankings(talk: Conversation, random: () => number, words: Embedder): Promise<Map<string, Record<Method, number[]>>> {
  const hashed = await embedderRankings(talk, new HashedNgramEmbedder());
  const meaning = await embedderRankings(talk, words);
  const keywords = new FactKeywordIndex();
  for (const turn of talk.turns) keywords.add(String(turn.id), turn.text);
  const found = new Map<string, Record<Method, number[]>>();
  for (const question of talk.questions) {
    const shuffled = talk.turns.map((turn) => ({ id: turn.id, key: random() })).sort((a, b) => a.key - b.key);
    const [plain, withWords] = [hashed.get(question.text), meaning.get(question.text)];
    found.set(question.text, {
      hybrid: plain?.hybrid ?? [],
      hybridGraph: plain?.hybridGraph ?? [],
      bm25: keywords.nearest(question.text, 25, () => true).map((match) => Number(match.id)),
      vectors: plain?.vectors ?? [],
      random: shuffled.slice(0, 25).map((entry) => entry.id),
      hybridWords: withWords?.hybrid ?? [],
      hybridGraphWords: withWords?.hybridGraph ?? [],
      vectorsWords: withWords?.vectors ?? [],
    });
  }
  return found;
}

/** Recall@k by kind and method, over every conversation. */
async function recalls(): Promise<{ table: Map<string, number>; questions: Map<string, number> }> {
  const random = seededRandom(20261122);
  const words = new WordVectorEmbedder();
  const sums = new Map<string, number>();
  const questions = new Map<string, number>();
  for (let c = 0; c < conversations; c++) {
    const talk = conversation(random, sessions, turnsPerSession);
    const ranked = await rankings(talk, random, words);
    for (const question of talk.questions) {
      const found = ranked.get(question.text);
      if (found === undefined) continue;
      for (const kind of [question.kind, 'overall'] as const) {
        questions.set(kind, (questions.get(kind) ?? 0) + 1);
        for (const method of methods) {
          for (const k of ks) {
            const top = new Set(found[method].slice(0, k));
            const share = question.evidence.filter((id) => top.has(id)).length / question.evidence.length;
            const key = `${kind}|${method}|${k}`;
            sums.set(key, (sums.get(key) ?? 0) + share);
          }
        }
      }
    }
  }
  const table = new Map<string, number>();
  for (const [key, sum] of sums) table.set(key, sum / (questions.get(key.split('|')[0] ?? '') ?? 1));
  return { table, questions };
}

/** The keyword index rebuilt from `count` facts' texts, against reading their records from LMDB. */
async function rebuildRow(texts: readonly string[]): Promise<Row> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-bench-bm25-'));
  const db = open({ path: join(dir, 'store'), noSubdir: false });
  try {
    await db.transaction(() => {
      for (const [i, text] of texts.entries()) void db.put(`f${i}`, { v: 1, id: `f${i}`, text, importance: 0.5, createdAt: i });
    });
    const readStart = process.hrtime.bigint();
    let chars = 0;
    for (const { value } of db.getRange()) chars += (value as { text: string }).text.length;
    const read = elapsedMs(readStart);
    const buildStart = process.hrtime.bigint();
    const index = new FactKeywordIndex();
    texts.forEach((text, i) => index.add(`f${i}`, text));
    const built = elapsedMs(buildStart);
    if (chars === 0 || index.size !== texts.length) throw new Error('the rebuild measured nothing');
    return {
      benchmark: `keyword index rebuilt at open, ${texts.length} facts`,
      troupe: duration(built),
      raw: duration(read),
      ratio: built / read,
      notes: 'rebuilding the BM25 index from the facts, against reading the same fact records from LMDB (which opening a store does anyway)',
    };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const at = (table: Map<string, number>, kind: string, method: Method, k: number): number => table.get(`${kind}|${method}|${k}`) ?? 0;

export async function retrievalQuality(): Promise<Row[]> {
  const { table, questions } = await recalls();
  const lines = [
    '| question kind | questions | k | hybrid (RRF only) | hybrid + graph + re-rank | BM25 alone | vectors alone | random | hybrid, word vectors | + graph + re-rank, word vectors | word vectors alone |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const rows: Row[] = [];
  for (const kind of kinds) {
    for (const k of ks) {
      const figure = (method: Method): number => at(table, kind, method, k);
      lines.push(`| ${kind} | ${questions.get(kind) ?? 0} | ${k} | ${methods.map((method) => figure(method).toFixed(3)).join(' | ')} |`);
      const [troupe, bm25, vectors] = [figure('hybridGraph'), figure('bm25'), figure('vectors')];
      const best = Math.max(bm25, vectors);
      rows.push({
        benchmark: `recall@${k}, ${kind}`,
        troupe: troupe.toFixed(3),
        raw: best.toFixed(3),
        ratio: troupe === 0 ? Infinity : best / troupe,
        notes: `hybrid (graph channel and re-rank, turns imported as a conversation) against the better single channel; RRF only ${figure('hybrid').toFixed(3)}, BM25 ${bm25.toFixed(3)}, vectors ${vectors.toFixed(3)}, random ${figure('random').toFixed(3)}; with the word-vector embedder: hybrid ${figure('hybridGraphWords').toFixed(3)} (RRF only ${figure('hybridWords').toFixed(3)}), vectors ${figure('vectorsWords').toFixed(3)}`,
      });
    }
  }
  // On stderr, beside the progress: stdout holds only the report's tables, one per suite, which suites running at once would interleave with.
  process.stderr.write(
    `\nL4 retrieval recall by question kind (${conversations} conversations, ${sessions} sessions of ${turnsPerSession}+ turns):\n${lines.join('\n')}\n`,
  );
  const texts = conversation(seededRandom(7), sized(400, 20), 25).turns.map((turn) => turn.text);
  rows.push(await rebuildRow(texts));
  return rows;
}

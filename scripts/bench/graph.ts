import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, type Key, type RootDatabase, open } from 'lmdb';
import { type GraphMemory, type GraphNode, blockersOf, neighbourhood, openGraphMemory } from '../../src/graph/index.js';
import { seededRandom } from '../../src/random.js';
import { sized } from './benchSize.js';
import { type GeneratedGraph, generateGraph } from './graphShape.js';
import { hybridRetrievalRow } from './graphRetrievalRow.js';
import { elapsedMs, percentile } from './measure.js';
import { type Row, duration, rate } from './report.js';
import { silentLogger } from './silentLogger.js';

// Issue 33: the graph at 100,000 nodes and 300,000 edges (`graphShape.ts`): nodes and edges added
// through GraphMemory until durable (every rule checked: the matrix, duplicates, `depends_on`
// acyclic by a search from the new edge's target, `part_of` a forest), against lmdb puts of the
// same records with the same durability; then a depth-2 neighbourhood, an event's blockers and a
// hybrid retrieval (graphRetrievalRow.ts), against plain lmdb reads of the records each returned;
// and the reopen that loads it all.

const NODES = sized(100_000, 300);
/** Changes issued before waiting for them to be durable, on both sides. */
const IN_FLIGHT = 1_000;
const QUERIES = sized(5_000, 50);
const OWNER = 'bench-agent';

interface Env {
  readonly root: RootDatabase;
  readonly nodes: Database<unknown>;
  readonly edges: Database<unknown>;
}

function openEnv(dir: string): Env {
  const root = open({ path: dir, noSubdir: false, maxDbs: 8 });
  return { root, nodes: root.openDB<unknown>({ name: 'graph-nodes' }), edges: root.openDB<unknown>({ name: 'graph-edges' }) };
}

/** The graph memory in `env`, its limits those of `graph`. */
function openGraph(env: Env, graph: GeneratedGraph): Promise<GraphMemory> {
  return openGraphMemory({ db: env.root, ownerId: OWNER, limits: { maxNodes: graph.nodes.length, maxEdges: graph.links.length }, logger: silentLogger });
}

/** One side's writing of items [start, end) of a stage, resolving once they are durable. */
type Chunk = (start: number, end: number) => Promise<unknown>;

/**
 * Items a second on each side, `IN_FLIGHT` at a time, raw and troupe taking turns chunk by chunk
 * so that a change in the machine's load hits both alike.
 */
async function alternating(count: number, raw: Chunk, troupe: Chunk): Promise<{ raw: number; troupe: number }> {
  let rawMs = 0;
  let troupeMs = 0;
  for (let i = 0; i < count; i += IN_FLIGHT) {
    const end = Math.min(count, i + IN_FLIGHT);
    let start = process.hrtime.bigint();
    await raw(i, end);
    rawMs += elapsedMs(start);
    start = process.hrtime.bigint();
    await troupe(i, end);
    troupeMs += elapsedMs(start);
  }
  return { raw: count / (rawMs / 1000), troupe: count / (troupeMs / 1000) };
}

/** `op` of each of [start, end), all in flight at once. */
const eachOf = (start: number, end: number, op: (i: number) => Promise<unknown>): Promise<unknown> =>
  Promise.all(Array.from({ length: end - start }, (_, j) => op(start + j)));

/** The edges added by batches, and the rest (the last tenth) one `link` call each. */
const split = (graph: GeneratedGraph): number => Math.floor(graph.links.length * 0.9);

interface InsertRates {
  readonly nodes: { raw: number; troupe: number };
  /** The first nine tenths of the edges, `IN_FLIGHT` a batch. */
  readonly batched: { raw: number; troupe: number };
  /** The last tenth, one call each, `IN_FLIGHT` in flight. */
  readonly single: { raw: number; troupe: number };
}

function addNode(memory: GraphMemory, node: GraphNode): Promise<unknown> {
  const { id, content, metadata, sessionId } = node;
  if (node.kind === 'event') return memory.addEvent({ id, content, metadata, sessionId, status: node.status, dueAt: node.dueAt, priority: node.priority });
  return memory.addNote({ id, content, metadata, sessionId, title: node.title, tags: node.tags, source: node.source });
}

/**
 * The graph written both ways: through `memory`, and as the records troupe keeps put with plain
 * lmdb into `raw` (a node under [owner, id], an edge under [owner, from, type, to]), each resolving
 * once committed and flushed.
 */
async function insertRates(raw: Env, memory: GraphMemory, graph: GeneratedGraph): Promise<InsertRates> {
  const link = (i: number): GeneratedGraph['links'][number] => graph.links[i] as GeneratedGraph['links'][number];
  const putEdge = (i: number): Promise<boolean> => {
    const { from, to, type, weight } = link(i);
    return raw.edges.put([OWNER, from, type, to], { v: 1, weight, createdAt: 1_800_000_000_000 });
  };
  const durable = async (written: Promise<unknown>): Promise<void> => {
    await written;
    await raw.root.flushed;
  };
  const nodes = await alternating(
    graph.nodes.length,
    (start, end) => eachOf(start, end, (i) => durable(raw.nodes.put([OWNER, (graph.nodes[i] as GraphNode).id], { v: 1, node: graph.nodes[i] }))),
    (start, end) => eachOf(start, end, (i) => addNode(memory, graph.nodes[i] as GraphNode)),
  );
  const batched = await alternating(
    split(graph),
    async (start, end) => {
      // One synchronous section of puts: one transaction, as linkMany writes its edges.
      let last: Promise<unknown> = Promise.resolve();
      for (let i = start; i < end; i++) last = putEdge(i);
      await durable(last);
    },
    async (start, end) => {
      const outcomes = await memory.linkMany(graph.links.slice(start, end));
      const refused = outcomes.find((outcome) => !outcome.ok);
      if (refused !== undefined) throw new Error(`the generated graph has an edge the graph refuses: ${refused.error.message}`);
    },
  );
  const single = await alternating(
    graph.links.length - split(graph),
    (start, end) => eachOf(split(graph) + start, split(graph) + end, (i) => durable(putEdge(i))),
    (start, end) => eachOf(split(graph) + start, split(graph) + end, (i) => memory.link(link(i))),
  );
  return { nodes, batched, single };
}

/** Per query: troupe's answer timed, then plain lmdb reads of the records it returned, timed. */
function timeQueries(ids: readonly string[], query: (id: string) => Key[][], read: (keys: Key[][]) => void): { troupe: number[]; raw: number[] } {
  const troupe: number[] = [];
  const raw: number[] = [];
  for (const id of ids) {
    let start = process.hrtime.bigint();
    const keys = query(id);
    troupe.push(elapsedMs(start));
    start = process.hrtime.bigint();
    read(keys);
    raw.push(elapsedMs(start));
  }
  return { troupe, raw };
}

const p50p95 = (samples: readonly number[]): string => `p50 ${duration(percentile(samples, 50))} · p95 ${duration(percentile(samples, 95))}`;

function queryRows(env: Env, memory: GraphMemory, graph: GeneratedGraph): Row[] {
  const random = seededRandom(33);
  const starts = Array.from({ length: QUERIES }, () => (graph.nodes[Math.floor(random() * graph.nodes.length)] as GraphNode).id);
  const events = graph.nodes.filter((node) => node.kind === 'event');
  const blocked = Array.from({ length: QUERIES }, () => (events[Math.floor(random() * events.length)] as GraphNode).id);
  // The floor reads each record the answer holds: [nodes' keys, edges' keys].
  const read = ([nodeKeys = [], edgeKeys = []]: Key[][]): void => {
    for (const key of nodeKeys) if (env.nodes.get(key) === undefined) throw new Error(`node ${String(key)} missing`);
    for (const key of edgeKeys) if (env.edges.get(key) === undefined) throw new Error(`edge ${String(key)} missing`);
  };
  let found = 0;
  const near = timeQueries(
    starts,
    (id) => {
      const result = neighbourhood(memory.graph, id, { depth: 2 });
      found += result.nodes.length;
      return [result.nodes.map(({ node }) => [OWNER, node.id]), result.edges.map((edge) => [OWNER, edge.from, edge.type, edge.to])];
    },
    read,
  );
  let blockers = 0;
  const block = timeQueries(
    blocked,
    (id) => {
      const result = blockersOf(memory.graph, id);
      blockers += result.length;
      return [result.map((node) => [OWNER, node.id]), []];
    },
    read,
  );
  const common = `${QUERIES.toLocaleString('en')} queries from seeded random starts`;
  return [
    {
      benchmark: 'depth-2 neighbourhood (both directions, every type, maxNodes 100)',
      troupe: p50p95(near.troupe),
      raw: p50p95(near.raw),
      ratio: percentile(near.troupe, 50) / percentile(near.raw, 50),
      notes: `${common}, ${(found / QUERIES).toFixed(1)} nodes each on average; raw: lmdb get of each node and edge record the answer holds; goal p50 ≤ 1 ms: ${percentile(near.troupe, 50) <= 1 ? 'met' : 'NOT met'}`,
    },
    {
      benchmark: "an event's unfinished blockers (depends_on, transitively)",
      troupe: p50p95(block.troupe),
      raw: p50p95(block.raw),
      ratio: percentile(block.troupe, 50) / percentile(block.raw, 50),
      notes: `${common}, ${(blockers / QUERIES).toFixed(1)} blockers each on average; raw: lmdb get of each blocker's record`,
    },
  ];
}

/** Opens the graph again (every record validated, every edge's rules checked), against plain lmdb reading every record. */
async function reopenRow(env: Env, graph: GeneratedGraph): Promise<Row> {
  let start = process.hrtime.bigint();
  let records = 0;
  for (const db of [env.nodes, env.edges]) for (const entry of db.getRange({ start: [OWNER], end: [OWNER, '~'] })) if (entry.value !== undefined) records++;
  const rawMs = elapsedMs(start);
  start = process.hrtime.bigint();
  const memory = await openGraph(env, graph);
  const troupeMs = elapsedMs(start);
  if (memory.graph.edgeCount !== graph.links.length) throw new Error(`reopened with ${memory.graph.edgeCount} edges, expected ${graph.links.length}`);
  return {
    benchmark: 'reopen: load the graph from LMDB',
    troupe: duration(troupeMs),
    raw: duration(rawMs),
    ratio: troupeMs / rawMs,
    notes: `${records.toLocaleString('en')} records; troupe = openGraphMemory (zod check of every record, every edge's rules checked again); raw = lmdb getRange over them, unchecked`,
  };
}

export async function graphSuite(): Promise<Row[]> {
  const graph = generateGraph(NODES, 2026);
  const base = await mkdtemp(join(tmpdir(), 'troupe-bench-graph-'));
  const rawEnv = openEnv(join(base, 'raw'));
  const env = openEnv(join(base, 'troupe'));
  try {
    const memory = await openGraph(env, graph);
    const { nodes, batched, single } = await insertRates(rawEnv, memory, graph);
    const size = `${graph.nodes.length.toLocaleString('en')} nodes, ${graph.links.length.toLocaleString('en')} edges`;
    const durable = 'each awaited until committed and flushed; raw and troupe take turns chunk by chunk';
    const checked = 'every rule checked: the matrix, duplicates, depends_on acyclic by a search from the new edge’s target, part_of a forest';
    return [
      {
        benchmark: `add nodes (${size} in all)`,
        troupe: rate(nodes.troupe, 'nodes'),
        raw: rate(nodes.raw, 'nodes'),
        ratio: nodes.raw / nodes.troupe,
        notes: `troupe = GraphMemory.addEvent / addNote (zod check, bounds), ${IN_FLIGHT.toLocaleString('en')} in flight; raw = lmdb put of the same record; ${durable}`,
      },
      {
        benchmark: `add edges in batches: the first ${split(graph).toLocaleString('en')}`,
        troupe: rate(batched.troupe, 'edges'),
        raw: rate(batched.raw, 'edges'),
        ratio: batched.raw / batched.troupe,
        notes: `troupe = GraphMemory.linkMany, ${IN_FLIGHT.toLocaleString('en')} links a call (one transaction), ${checked}; raw = lmdb puts of the same records, ${IN_FLIGHT.toLocaleString('en')} in one synchronous section (one transaction); ${durable}; goal ≥ 20,000 edges/s: ${batched.troupe >= 20_000 ? 'met' : 'NOT met'}`,
      },
      {
        benchmark: `add edges one call each: the last ${(graph.links.length - split(graph)).toLocaleString('en')}`,
        troupe: rate(single.troupe, 'edges'),
        raw: rate(single.raw, 'edges'),
        ratio: single.raw / single.troupe,
        notes: `troupe = GraphMemory.link, ${IN_FLIGHT.toLocaleString('en')} in flight (those issued in one turn share a transaction), the same checks; raw = lmdb put of each record; ${durable}`,
      },
      ...queryRows(env, memory, graph),
      await hybridRetrievalRow(env.root, env.nodes, memory, graph),
      await reopenRow(env, graph),
    ];
  } finally {
    await rawEnv.root.close();
    await env.root.close();
    await rm(base, { recursive: true, force: true });
  }
}

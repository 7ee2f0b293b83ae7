import type { Database, Key, RootDatabase } from 'lmdb';
import { z } from 'zod';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type EdgeKey, EdgeTypeSchema, EdgeWeightSchema, type GraphEdge } from './edgeSchema.js';
import { type GraphNode, GraphNodeSchema, NodeIdSchema } from './nodeSchema.js';
import type { GraphChange } from './readonlyGraph.js';

/**
 * The graph's sub-databases in the shared LMDB environment. Keys start with the owner's id (an
 * agent's, or the society's), so one environment holds every graph. Edges are stored once, by
 * their source (`[owner, from, type, to]`): the graph lives in memory whole with both directions
 * indexed, and a second on-disk index by target would be a second home of the same edge.
 */
export const graphSubDbs = { nodes: 'graph-nodes', edges: 'graph-edges' } as const;

/** A node as stored: a version, so the record can change shape later. */
const NodeRecordSchema = z.object({ v: z.literal(1), node: GraphNodeSchema }).strict();
/** An edge as stored; its key holds its ends and type. */
const EdgeRecordSchema = z.object({ v: z.literal(1), weight: EdgeWeightSchema, createdAt: z.number().int().nonnegative() }).strict();
const EdgeKeySchema = z.tuple([z.string(), NodeIdSchema, EdgeTypeSchema, NodeIdSchema]);

interface GraphDbs {
  readonly root: RootDatabase;
  readonly nodes: Database<unknown>;
  readonly edges: Database<unknown>;
}

// One set of handles per environment, however many graphs are opened in it.
const opened = new WeakMap<RootDatabase, GraphDbs>();

function graphDbsOf(root: RootDatabase): GraphDbs {
  let dbs = opened.get(root);
  if (dbs === undefined) {
    dbs = { root, nodes: root.openDB<unknown>({ name: graphSubDbs.nodes }), edges: root.openDB<unknown>({ name: graphSubDbs.edges }) };
    opened.set(root, dbs);
  }
  return dbs;
}

/** A record skipped at load: its sub-db, its key and why. */
type Skip = [db: string, key: Key, reason: string];

/** A stored value that could not be decoded, and why. */
class Undecodable {
  constructor(readonly reason: string) {}
}

/** What a read found, and what it skipped. */
interface Found {
  readonly graph: StoredGraph;
  readonly skipped: Skip[];
}

/** `value` checked by `schema`, or undefined with the reason it failed in `skipped`. */
function valid<S extends z.ZodType>(db: string, key: Key, schema: S, value: unknown, skipped: Skip[]): z.infer<S> | undefined {
  if (value instanceof Undecodable) {
    skipped.push([db, key, `undecodable: ${value.reason}`]);
    return undefined;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  skipped.push([db, key, issue === undefined ? 'invalid' : `${issue.path.join('.') || 'record'}: ${issue.message}`]);
  return undefined;
}

/** `owner`'s keys in `db`: node ids sort below `~`, so the range holds them all and no other owner's. */
function* keysOf(db: Database<unknown>, owner: string): Generator<Key[]> {
  for (const key of db.getKeys({ start: [owner], end: [owner, '~'] })) {
    if (Array.isArray(key) && key[0] === owner) yield key;
  }
}

/** What a load found: the valid records, in key order. */
export interface StoredGraph {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
}

/**
 * One owner's graph records in LMDB. Records are validated when read; one that fails is skipped
 * with an error log line naming its sub-db and key.
 */
export class GraphRecords {
  readonly #dbs: GraphDbs;
  readonly #owner: string;
  readonly #logger: Logger;

  constructor(root: RootDatabase, owner: string, logger: Logger) {
    this.#dbs = graphDbsOf(root);
    this.#owner = owner;
    this.#logger = logger;
  }

  /**
   * Every valid record of the owner. One pass over each range reads keys and values together; a
   * value that does not decode stops such a pass, so then the owner's records are read again key
   * by key, and only that one is skipped. The skips are logged once, from the read that finished.
   */
  read(): StoredGraph {
    let found: Found;
    try {
      found = this.#collect((db) => db.getRange({ start: [this.#owner], end: [this.#owner, '~'] }));
    } catch {
      found = this.#collect((db) => this.#oneByOne(db));
    }
    for (const [db, key, reason] of found.skipped) this.#skip(db, key, reason);
    return found.graph;
  }

  #collect(entries: (db: Database<unknown>) => Iterable<{ key: Key; value: unknown }>): Found {
    const skipped: Skip[] = [];
    const nodes: GraphNode[] = [];
    for (const { key, value } of this.#owned(entries(this.#dbs.nodes))) {
      const record = valid(graphSubDbs.nodes, key, NodeRecordSchema, value, skipped);
      if (record === undefined) continue;
      if (record.node.id === key[1]) nodes.push(record.node);
      else skipped.push([graphSubDbs.nodes, key, `node.id: ${record.node.id} stored under another id`]);
    }
    const edges: GraphEdge[] = [];
    for (const { key, value } of this.#owned(entries(this.#dbs.edges))) {
      const parsedKey = EdgeKeySchema.safeParse(key);
      if (!parsedKey.success) {
        skipped.push([graphSubDbs.edges, key, 'key: not [owner, from, type, to]']);
        continue;
      }
      const record = valid(graphSubDbs.edges, key, EdgeRecordSchema, value, skipped);
      const [, from, type, to] = parsedKey.data;
      if (record !== undefined) edges.push({ from, to, type, weight: record.weight, createdAt: record.createdAt });
    }
    return { graph: { nodes, edges }, skipped };
  }

  /** The owner's records of `db` one at a time, a value that does not decode given as `undecodable`. */
  *#oneByOne(db: Database<unknown>): Generator<{ key: Key; value: unknown }> {
    for (const key of db.getKeys({ start: [this.#owner], end: [this.#owner, '~'] })) {
      let value: unknown;
      try {
        value = db.get(key);
      } catch (error) {
        value = new Undecodable(describeError(error));
      }
      yield { key, value };
    }
  }

  /** Node ids sort below `~`, so the range holds every record of the owner's and no other's. */
  *#owned(entries: Iterable<{ key: Key; value: unknown }>): Generator<{ key: Key[]; value: unknown }> {
    for (const { key, value } of entries) if (Array.isArray(key) && key[0] === this.#owner) yield { key, value };
  }

  /**
   * Issues every put and remove of `change` in one synchronous section, which lmdb-js commits as
   * one transaction (a crash leaves all of it or none), and resolves once it is committed and
   * flushed to disk.
   */
  async write(change: GraphChange): Promise<void> {
    const { nodes, edges, root } = this.#dbs;
    let committed: Promise<unknown> = Promise.resolve();
    for (const edge of change.removeEdges) committed = edges.remove(this.#edgeKey(edge));
    for (const id of change.removeNodes) committed = nodes.remove([this.#owner, id]);
    for (const node of change.putNodes) committed = nodes.put([this.#owner, node.id], { v: 1, node });
    for (const edge of change.putEdges) committed = edges.put(this.#edgeKey(edge), { v: 1, weight: edge.weight, createdAt: edge.createdAt });
    // `root.flushed` read now is the flush of the transaction these ops just joined.
    const flushed = new Promise<unknown>((resolve, reject) => void root.flushed.then(resolve, reject));
    await committed;
    await flushed;
  }

  #edgeKey(edge: EdgeKey): Key {
    return [this.#owner, edge.from, edge.type, edge.to];
  }

  #skip(db: string, key: Key, reason: string): void {
    this.#logger.error({ owner: this.#owner, db, key: JSON.stringify(key), reason }, 'skipped an invalid graph record');
  }
}

/**
 * Erases every node and edge `owners` have in `root` (agents the organisation forgets), in one
 * transaction; resolves once it is on disk. Their graphs must not be open: a change issued later
 * would bring records back.
 */
export async function eraseStoredGraphs(root: RootDatabase, owners: readonly string[]): Promise<void> {
  if (owners.length === 0) return;
  const { nodes, edges } = graphDbsOf(root);
  await root.transaction(() => {
    for (const owner of owners) {
      for (const db of [nodes, edges]) {
        for (const key of [...keysOf(db, owner)]) db.removeSync(key);
      }
    }
  });
  await root.flushed;
}

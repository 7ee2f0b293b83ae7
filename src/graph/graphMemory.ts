import type { RootDatabase } from 'lmdb';
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import { TroupeError, ValidationError, describeError } from '../errors.js';
import { type IdGenerator, randomIds } from '../ids.js';
import { type Logger, silentLogger } from '../logger.js';
import { parseOrThrow } from '../task/index.js';
import { type EdgeKey, EdgeTypeSchema, EdgeWeightSchema, type GraphEdge } from './edgeSchema.js';
import { type GraphLimitOptions, type GraphLimits, graphLimitsOf } from './graphLimits.js';
import { GraphRecords } from './graphRecords.js';
import { GraphRuleError } from './graphRuleError.js';
import { loadGraph } from './loadGraph.js';
import { MemoryGraph } from './memoryGraph.js';
import { EventPatchSchema, type NewEvent, NewEventSchema, type NewNote, NewNoteSchema, type NodePatch, NotePatchSchema, checkNodeBounds } from './nodeInput.js';
import { type EventNode, type GraphNode, NodeIdSchema, type NoteNode, OwnerIdSchema } from './nodeSchema.js';
import type { GraphChange, ReadonlyGraph } from './readonlyGraph.js';

/** An edge to add: `weight` is 1 unless given. */
const LinkSchema = z.object({ from: NodeIdSchema, to: NodeIdSchema, type: EdgeTypeSchema, weight: EdgeWeightSchema.optional() }).strict();
export type Link = z.input<typeof LinkSchema>;

/** What became of one link of a `linkMany` batch: the edge added, or why it was refused (what `link` would have rejected with). */
export type LinkOutcome = { readonly ok: true; readonly edge: GraphEdge } | { readonly ok: false; readonly error: GraphRuleError | ValidationError };
const EdgeKeySchema = LinkSchema.omit({ weight: true });
/** A batch of links: an array, each item checked on its own (a bad one is refused alone). */
const LinkListSchema = z.array(z.unknown());

export interface GraphMemoryOptions {
  /** The LMDB environment to keep the graph in (sub-dbs `graph-nodes`, `graph-edges`), or null for a graph in memory only. */
  readonly db: RootDatabase | null;
  readonly ownerId: string;
  readonly limits?: GraphLimitOptions;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Makes the ids of nodes added without one (`ids.task()`). */
  readonly ids?: IdGenerator;
}

/**
 * Opens one owner's graph memory (seed 002): loads what `db` holds for `ownerId` into memory,
 * skipping and logging damaged records. Then every change is checked, applied in memory and
 * issued to LMDB as one transaction in one synchronous section, and resolves once it is on disk;
 * a refused change rejects and changes nothing.
 *
 * @example
 * const memory = await openGraphMemory({ db: null, ownerId: 'planner-1' });
 * const report = await memory.addEvent({ content: 'Write the report' });
 * const data = await memory.addEvent({ content: 'Collect the data' });
 * await memory.link({ from: report.id, to: data.id, type: 'depends_on' });
 * blockersOf(memory.graph, report.id); // [data]
 */
export async function openGraphMemory(options: GraphMemoryOptions): Promise<GraphMemory> {
  const ownerId = parseOrThrow(OwnerIdSchema, options.ownerId, 'ownerId');
  const limits = graphLimitsOf(options.limits);
  const logger = options.logger ?? silentLogger;
  const graph = new MemoryGraph(limits);
  const records = options.db === null ? null : new GraphRecords(options.db, ownerId, logger);
  if (records !== null) await loadGraph(records, graph, ownerId, logger);
  return new GraphMemory({ ownerId, limits, logger, graph, records, clock: options.clock ?? systemClock, ids: options.ids ?? randomIds });
}

interface GraphMemoryParts {
  readonly ownerId: string;
  readonly limits: GraphLimits;
  readonly logger: Logger;
  readonly graph: MemoryGraph;
  readonly records: GraphRecords | null;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** One owner's graph of events and notes, in memory and (unless opened without a db) in LMDB. Made by `openGraphMemory`. */
export class GraphMemory {
  readonly ownerId: string;
  readonly limits: GraphLimits;
  readonly #parts: GraphMemoryParts;
  // Settles once every write issued so far has settled.
  #tail: Promise<void> = Promise.resolve();
  readonly #watchers = new Set<(change: GraphChange) => void>();

  constructor(parts: GraphMemoryParts) {
    this.#parts = parts;
    this.ownerId = parts.ownerId;
    this.limits = parts.limits;
  }

  /** The graph as it is now, changes not yet on disk included: what traversals read. */
  get graph(): ReadonlyGraph {
    return this.#parts.graph;
  }

  addEvent(input: NewEvent): Promise<EventNode> {
    return this.#change(() => {
      const { id, metadata, sessionId, status, dueAt, priority, ...rest } = parseOrThrow(NewEventSchema, input);
      const node: EventNode = {
        kind: 'event',
        ...rest,
        ...this.#common(id, metadata, sessionId),
        status: status ?? 'pending',
        dueAt: dueAt ?? null,
        priority: priority ?? 0,
      };
      checkNodeBounds(node, this.limits);
      return [this.#parts.graph.addNode(node), node];
    });
  }

  addNote(input: NewNote): Promise<NoteNode> {
    return this.#change(() => {
      const { id, metadata, sessionId, title, tags, source, ...rest } = parseOrThrow(NewNoteSchema, input);
      const node: NoteNode = {
        kind: 'note',
        ...rest,
        ...this.#common(id, metadata, sessionId),
        title: title ?? '',
        tags: tags ?? [],
        source: source ?? null,
      };
      checkNodeBounds(node, this.limits);
      return [this.#parts.graph.addNode(node), node];
    });
  }

  /** What every new node has, whatever its kind: its id (a new one unless given), both times now, its metadata and session. */
  #common(id: string | undefined, metadata: GraphNode['metadata'] | undefined, sessionId: string | null | undefined) {
    const now = this.#parts.clock.now();
    return { id: id ?? this.#parts.ids.task(), createdAt: now, updatedAt: now, metadata: metadata ?? {}, sessionId: sessionId ?? null };
  }

  /** Changes the fields `patch` gives (those of the node's kind: a note has no status); `updatedAt` becomes now. */
  updateNode(id: string, patch: NodePatch): Promise<GraphNode> {
    return this.#change(() => {
      const node = this.#parts.graph.node(parseOrThrow(NodeIdSchema, id, 'id'));
      if (node === undefined) throw new GraphRuleError('unknown_node', `no node with id ${id}`, { nodeId: id });
      const updatedAt = this.#parts.clock.now();
      // Each field the patch gives passed the same check as the node's own field: the node needs no second parse.
      const updated: GraphNode =
        node.kind === 'event'
          ? { ...node, ...givenFields(parseOrThrow(EventPatchSchema, patch)), updatedAt }
          : { ...node, ...givenFields(parseOrThrow(NotePatchSchema, patch)), updatedAt };
      checkNodeBounds(updated, this.limits);
      return [this.#parts.graph.replaceNode(updated), updated];
    });
  }

  /** Removes a node and every edge that touches it. */
  removeNode(id: string): Promise<void> {
    return this.#change(() => [this.#parts.graph.removeNode(parseOrThrow(NodeIdSchema, id, 'id')), undefined]);
  }

  /** Adds an edge, if seed 002's matrix and its type's topology allow it (see edgeRules.ts). */
  link(input: Link): Promise<GraphEdge> {
    return this.#change(() => {
      const change = this.#addEdge(input, '');
      return [change, change.putEdges[0] as GraphEdge];
    });
  }

  /**
   * Adds many edges at once: each link is checked and applied in order, against the graph the
   * links before it left, so the outcome of each is what `link` would have given called for them
   * one after another; a refused link (its outcome says why, a bad field named `links[i].…`)
   * leaves no trace and the others still count. The edges added go to LMDB in one transaction,
   * and the promise resolves once it is on disk, with one outcome per link in the order given.
   * More than `maxLinksPerBatch` links are refused whole (a ValidationError), changing nothing.
   */
  linkMany(links: readonly Link[]): Promise<LinkOutcome[]> {
    return this.#change(() => {
      const items = parseOrThrow(LinkListSchema, links, 'links');
      const max = this.limits.maxLinksPerBatch;
      if (items.length > max) throw new ValidationError('links', `${items.length} links, more than maxLinksPerBatch (${max})`);
      const outcomes: LinkOutcome[] = [];
      const added: GraphEdge[] = [];
      items.forEach((input, index) => {
        try {
          const edge = this.#addEdge(input, `links[${index}]`).putEdges[0] as GraphEdge;
          added.push(edge);
          outcomes.push({ ok: true, edge });
        } catch (error) {
          if (!(error instanceof GraphRuleError || error instanceof ValidationError)) {
            // Not a refusal but a fault: the batch fails whole, the edges it added taken back first.
            for (const edge of added) this.#parts.graph.removeEdge(edge);
            throw error;
          }
          outcomes.push({ ok: false, error });
        }
      });
      return [{ putNodes: [], removeNodes: [], putEdges: added, removeEdges: [] }, outcomes];
    });
  }

  /** Checks `input` (its fields named under `what`) and adds its edge to the graph in memory. */
  #addEdge(input: unknown, what: string): GraphChange {
    const { from, to, type, weight } = parseOrThrow(LinkSchema, input, what);
    return this.#parts.graph.addEdge({ from, to, type, weight: weight ?? 1, createdAt: this.#parts.clock.now() });
  }

  unlink(key: EdgeKey): Promise<void> {
    return this.#change(() => [this.#parts.graph.removeEdge(parseOrThrow(EdgeKeySchema, key)), undefined]);
  }

  /**
   * Calls `watcher` with every change from now on, as it is applied in memory (before it is on
   * disk), synchronously: what keeps an index of the nodes (retrieval's keyword index) in step.
   * Returns what stops it.
   */
  watch(watcher: (change: GraphChange) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** Resolves once every change made so far is on disk (or has failed). */
  flushed(): Promise<void> {
    return this.#tail;
  }

  /**
   * Runs `apply` (which checks, then changes the graph in memory) and, in the same synchronous
   * section, issues its records to LMDB; a refusal rejects with nothing changed or written.
   */
  #change<T>(apply: () => readonly [GraphChange, T]): Promise<T> {
    let applied: readonly [GraphChange, T];
    try {
      applied = apply();
    } catch (error) {
      return Promise.reject(error);
    }
    const [change, result] = applied;
    for (const watcher of this.#watchers) watcher(change);
    const { records } = this.#parts;
    if (records === null) return Promise.resolve(result);
    const written = records.write(change).catch((error: unknown) => {
      // The change stays in memory; what is on disk lacks it until it is made again.
      this.#parts.logger.error({ owner: this.ownerId, error: describeError(error) }, 'graph memory: a change failed to reach the disk');
      throw new TroupeError('internal', `graph memory of ${this.ownerId}: a change failed to reach the disk: ${describeError(error)}`, { cause: error });
    });
    this.#tail = Promise.all([this.#tail, written.catch(() => undefined)]).then(() => undefined);
    return written.then(() => result);
  }
}

/** The fields `patch` gives a value: a field left out, or given as undefined, stays as it was. */
function givenFields<T extends object>(patch: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

import { deepFreeze } from '../task/index.js';
import { type EdgeKey, type EdgeType, type GraphEdge, edgeTypes } from './edgeSchema.js';
import { edgeAllowed, edgeTopology } from './edgeRules.js';
import { GraphRuleError } from './graphRuleError.js';
import type { GraphNode } from './nodeSchema.js';
import type { GraphChange, ReadonlyGraph } from './readonlyGraph.js';
import { containmentCycle, dependencyCycle, parentOf } from './topologyChecks.js';

/**
 * A node's edges of each type, by the id at their other end; a type's map is made with its first
 * edge and dropped with its last. Most nodes have edges of one or two types of the four, each way:
 * eight maps made up front for every node were most of a large graph's memory (about 1.4 KB a
 * node), and the garbage collector walked them all on every full collection.
 */
type Links = Record<EdgeType, Map<string, GraphEdge> | undefined>;

/** A node with its edges both ways: the one home of both, so they cannot disagree. */
interface Entry {
  node: GraphNode;
  readonly out: Links;
  readonly in: Links;
}

const noEdges: readonly GraphEdge[] = Object.freeze([]);
const noIds: readonly string[] = Object.freeze([]);

// Every key present from the start, so all Links objects share one shape.
function emptyLinks(): Links {
  return { depends_on: undefined, part_of: undefined, references: undefined, produces: undefined };
}

function setLink(links: Links, type: EdgeType, id: string, edge: GraphEdge): void {
  (links[type] ??= new Map()).set(id, edge);
}

function deleteLink(links: Links | undefined, type: EdgeType, id: string): void {
  const map = links?.[type];
  if (map === undefined || !map.delete(id) || map.size > 0) return;
  (links as Links)[type] = undefined;
}

const nothingChanged = { putNodes: [], removeNodes: [], putEdges: [], removeEdges: [] } satisfies GraphChange;

/** Node and edge counts past which a change is refused. */
export interface GraphSize {
  readonly maxNodes: number;
  readonly maxEdges: number;
}

/**
 * The graph of seed 002 in memory: nodes by id, edges both ways by type. Every change checks
 * every rule before it touches anything, so a refused change (a GraphRuleError) leaves the graph
 * exactly as it was; an accepted one returns the records it changed, for the store to persist.
 * Nodes and edges it holds are frozen. Fields' bounds are checked before a node gets here.
 */
export class MemoryGraph implements ReadonlyGraph {
  readonly #entries = new Map<string, Entry>();
  readonly #size: GraphSize;
  #edgeCount = 0;

  constructor(size: GraphSize) {
    this.#size = size;
  }

  get nodeCount(): number {
    return this.#entries.size;
  }

  get edgeCount(): number {
    return this.#edgeCount;
  }

  node(id: string): GraphNode | undefined {
    return this.#entries.get(id)?.node;
  }

  *nodes(): IterableIterator<GraphNode> {
    for (const entry of this.#entries.values()) yield entry.node;
  }

  *edges(): IterableIterator<GraphEdge> {
    for (const entry of this.#entries.values()) for (const type of edgeTypes) yield* entry.out[type]?.values() ?? [];
  }

  edge(key: EdgeKey): GraphEdge | undefined {
    return this.#entries.get(key.from)?.out[key.type]?.get(key.to);
  }

  outEdges(id: string, type: EdgeType): readonly GraphEdge[] {
    const links = this.#entries.get(id)?.out[type];
    return links === undefined ? noEdges : [...links.values()];
  }

  inEdges(id: string, type: EdgeType): readonly GraphEdge[] {
    const links = this.#entries.get(id)?.in[type];
    return links === undefined ? noEdges : [...links.values()];
  }

  /** The ids `id`'s edges of `type` lead to, read in place (nothing copied): for the checks every added edge runs. */
  targets(id: string, type: EdgeType): Iterable<string> {
    return this.#entries.get(id)?.out[type]?.keys() ?? noIds;
  }

  /** Adds a node with a new id. `overLimit` lets a load bring back a graph stored under a higher limit. */
  addNode(node: GraphNode, overLimit = false): GraphChange {
    if (this.#entries.has(node.id)) throw new GraphRuleError('node_exists', `a node with id ${node.id} exists`, { nodeId: node.id });
    if (!overLimit && this.#entries.size >= this.#size.maxNodes) {
      throw new GraphRuleError('node_limit', `the graph holds ${this.#entries.size} nodes, its limit (maxNodes ${this.#size.maxNodes})`, {
        limit: 'maxNodes',
        maxNodes: this.#size.maxNodes,
      });
    }
    const frozen = deepFreeze(node);
    this.#entries.set(node.id, { node: frozen, out: emptyLinks(), in: emptyLinks() });
    return { ...nothingChanged, putNodes: [frozen] };
  }

  /** Replaces a node by a new version of itself (same id, same kind: its edges were checked against its kind). */
  replaceNode(node: GraphNode): GraphChange {
    const entry = this.#entry(node.id);
    if (entry.node.kind !== node.kind) {
      throw new GraphRuleError('kind_change', `node ${node.id} is an ${entry.node.kind}; it cannot become a ${node.kind}`, { nodeId: node.id });
    }
    entry.node = deepFreeze(node);
    return { ...nothingChanged, putNodes: [entry.node] };
  }

  /** Removes a node and every edge that touches it. */
  removeNode(id: string): GraphChange {
    const entry = this.#entry(id);
    const removed: GraphEdge[] = [];
    for (const type of edgeTypes) removed.push(...(entry.out[type]?.values() ?? []), ...(entry.in[type]?.values() ?? []));
    for (const edge of removed) this.#unlink(edge);
    this.#entries.delete(id);
    return { ...nothingChanged, removeNodes: [id], removeEdges: removed.map(({ from, to, type }) => ({ from, to, type })) };
  }

  /** Adds an edge, if the matrix and its type's topology allow it (see edgeRules.ts); an accepted `edge` is held as it is, frozen (give it a fresh object). */
  addEdge(edge: GraphEdge, overLimit = false): GraphChange {
    const [source, target] = this.#checkEdge(edge, overLimit);
    const frozen = Object.freeze(edge);
    setLink(source.out, edge.type, edge.to, frozen);
    setLink(target.in, edge.type, edge.from, frozen);
    this.#edgeCount += 1;
    return { ...nothingChanged, putEdges: [frozen] };
  }

  removeEdge(key: EdgeKey): GraphChange {
    const edge = this.edge(key);
    if (edge === undefined) {
      throw new GraphRuleError('unknown_edge', `no ${key.type} edge from ${key.from} to ${key.to}`, { from: key.from, to: key.to, type: key.type });
    }
    this.#unlink(edge);
    return { ...nothingChanged, removeEdges: [{ from: edge.from, to: edge.to, type: edge.type }] };
  }

  #unlink(edge: GraphEdge): void {
    deleteLink(this.#entries.get(edge.from)?.out, edge.type, edge.to);
    deleteLink(this.#entries.get(edge.to)?.in, edge.type, edge.from);
    this.#edgeCount -= 1;
  }

  #entry(id: string): Entry {
    const entry = this.#entries.get(id);
    if (entry === undefined) throw new GraphRuleError('unknown_node', `no node with id ${id}`, { nodeId: id });
    return entry;
  }

  /** Throws the first rule `edge` breaks; changes nothing. Returns the entries of its two ends. */
  #checkEdge(edge: GraphEdge, overLimit: boolean): [Entry, Entry] {
    const { from, to, type } = edge;
    const source = this.#entry(from);
    const target = this.#entry(to);
    const [fromKind, toKind] = [source.node.kind, target.node.kind];
    if (from === to) throw new GraphRuleError('self_loop', `a ${type} edge may not join node ${from} to itself`, { from, to, type });
    if (!edgeAllowed(fromKind, toKind, type)) {
      throw new GraphRuleError('edge_kinds', `a ${type} edge may not go from an ${fromKind} to a ${toKind} (${from} → ${to})`, { from, to, type });
    }
    if (source.out[type]?.has(to) === true) throw new GraphRuleError('duplicate_edge', `a ${type} edge from ${from} to ${to} exists`, { from, to, type });
    if (!overLimit && this.#edgeCount >= this.#size.maxEdges) {
      throw new GraphRuleError('edge_limit', `the graph holds ${this.#edgeCount} edges, its limit (maxEdges ${this.#size.maxEdges})`, {
        from,
        to,
        type,
        limit: 'maxEdges',
        maxEdges: this.#size.maxEdges,
      });
    }
    this.#checkTopology(from, to, type);
    return [source, target];
  }

  #checkTopology(from: string, to: string, type: EdgeType): void {
    const shape = edgeTopology[type];
    switch (shape) {
      case 'acyclic': {
        const cycle = dependencyCycle(this, from, to);
        if (cycle !== undefined)
          throw new GraphRuleError('cycle', `${type} ${from} → ${to} would close the cycle ${cycle.join(' → ')}`, { from, to, type, cycle });
        return;
      }
      case 'forest': {
        const parent = parentOf(this, from);
        if (parent !== undefined) {
          throw new GraphRuleError('second_parent', `${from} is already ${type} ${parent}; an event has one parent`, { from, to, type, parent });
        }
        const cycle = containmentCycle(this, from, to);
        if (cycle !== undefined)
          throw new GraphRuleError('cycle', `${type} ${from} → ${to} would close the cycle ${cycle.join(' → ')}`, { from, to, type, cycle });
        return;
      }
      case 'free':
        return;
      default:
        shape satisfies never;
    }
  }
}

import { EdgeTypeSchema, type GraphMemory, type GraphNode } from '../../graph/index.js';
import { FactKeywordIndex } from '../../memory/facts/factKeywordIndex.js';
import { type LinkedNode, type NodeLink, type RetrievalGraph, nodeVisibleTo } from '../../memory/index.js';
import type { NodeVectors } from './nodeVectors.js';

// An agent's graph memory as a search of its memory reads it (the port RetrievalGraph): the
// nodes by keyword, each node as a hit shows it, and its edges both ways.

/** What a node is found by: a note's title, tags and content; an event's content. */
function searchedText(node: GraphNode): string {
  if (node.kind === 'event') return node.content;
  const title = node.title === '' ? '' : `${node.title}: `;
  return node.tags.length === 0 ? `${title}${node.content}` : `${title}${node.content} (${node.tags.join(', ')})`;
}

/**
 * Whether a search finds the node by its words: not one recorded from the society's work (a
 * Task's event, its answer, see WorkGraph), which repeats what the agent's tiers keep of the same
 * Task (a turn's search would find the very Task it answers). Those stay in the graph, where the
 * graph channel reaches them from a fact that names their Task, and the notes they lead to.
 */
const searchable = (node: GraphNode): boolean => typeof node.metadata['work'] !== 'string';

/** Archived events are hidden from a search, as from a neighbourhood. */
const hidden = (node: GraphNode): boolean => node.kind === 'event' && node.status === 'archived';

/** A node's importance in the re-rank: nothing in a node says it, so every node weighs as a fact of middling importance. */
const nodeImportance = 0.5;

/**
 * The retrieval side of one graph memory: a BM25 index over its nodes' text (see searchable) and,
 * with an embedder, their vectors (see NodeVectors), built when first asked for and kept in step
 * with every change after (see GraphMemory.watch), so a note or event an agent or the society's
 * work recorded is found by the words it holds and by what they mean. Archived events are
 * hidden, as a neighbourhood hides them.
 */
export class GraphRetrieval implements RetrievalGraph {
  readonly #memory: GraphMemory;
  readonly #keywords = new FactKeywordIndex();
  readonly #vectors: NodeVectors | null;
  /** Each node as a hit shows it, made once per version of the node (a change replaces the graph's frozen node object). */
  readonly #linked = new WeakMap<GraphNode, LinkedNode>();

  constructor(memory: GraphMemory, vectors: NodeVectors | null = null) {
    this.#memory = memory;
    this.#vectors = vectors;
    for (const node of memory.graph.nodes()) this.#put(node);
    memory.watch((change) => {
      for (const id of change.removeNodes) {
        this.#keywords.remove(id);
        this.#vectors?.remove(id);
      }
      for (const node of change.putNodes) this.#put(node);
    });
  }

  /** Resolves once every node has its vector (a bench, a test: a search does not wait for them). */
  ready(): Promise<void> {
    return this.#vectors?.ready() ?? Promise.resolve();
  }

  /** Makes no more vectors (the graph is closed), and saves them (see NodeVectors.close); resolves then. */
  close(): Promise<void> {
    return this.#vectors?.close() ?? Promise.resolve();
  }

  nearest(text: string, depth: number, sessionId: string | null | undefined): ReturnType<RetrievalGraph['nearest']> {
    return this.#keywords.nearest(text, depth, (id) => {
      const node = this.#memory.graph.node(id);
      return node !== undefined && !hidden(node) && nodeVisibleTo(node, sessionId);
    });
  }

  similar(direction: Float32Array, depth: number, sessionId: string | null | undefined): ReturnType<RetrievalGraph['similar']> {
    return (this.#vectors?.nearest(direction, depth, sessionId) ?? []).filter(({ id }) => {
      const node = this.#memory.graph.node(id);
      return node !== undefined && !hidden(node);
    });
  }

  similarity(direction: Float32Array, id: string): number | undefined {
    return this.#vectors?.similarity(direction, id);
  }

  #put(node: GraphNode): void {
    if (!searchable(node)) {
      this.#keywords.remove(node.id);
      this.#vectors?.remove(node.id);
      return;
    }
    const text = searchedText(node);
    this.#keywords.add(node.id, text);
    this.#vectors?.put(node.id, text, node.sessionId);
  }

  node(id: string): LinkedNode | undefined {
    const node = this.#memory.graph.node(id);
    if (node === undefined || hidden(node)) return undefined;
    let linked = this.#linked.get(node);
    if (linked === undefined) {
      linked = {
        id,
        kind: node.kind,
        text: searchedText(node),
        sessionId: node.sessionId,
        time: node.updatedAt,
        importance: nodeImportance,
        metadata: node.metadata,
      };
      this.#linked.set(node, linked);
    }
    return linked;
  }

  links(id: string): readonly NodeLink[] {
    const graph = this.#memory.graph;
    const links: NodeLink[] = [];
    for (const type of EdgeTypeSchema.options) {
      for (const edge of graph.outEdges(id, type)) links.push({ id: edge.to, weight: edge.weight });
      for (const edge of graph.inEdges(id, type)) links.push({ id: edge.from, weight: edge.weight });
    }
    return links;
  }
}

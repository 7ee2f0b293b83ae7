import type { JsonValue } from '../../task/index.js';
import type { KeywordMatch } from './factKeywordIndex.js';

// The agent's graph of events and notes as a search of its memory reads it (the runtime gives one
// over its graph memory): its nodes are found by keyword and by vector beside the facts, and the
// graph channel follows their edges from the best hits. Memory and the graph are sibling layers; this port is
// what memory asks of the graph, nothing more.

/** A node of the graph as retrieval sees it. */
export interface LinkedNode {
  readonly id: string;
  readonly kind: 'event' | 'note';
  /** What is searched and shown: a note's title and content, an event's content. */
  readonly text: string;
  /** Its session, or null for a node of every session. */
  readonly sessionId: string | null;
  /** When it last changed (ms since the epoch): its recency in the re-rank. */
  readonly time: number;
  /** 0..1, its weight in the re-rank as a fact's importance is. */
  readonly importance: number;
  readonly metadata: Readonly<Record<string, JsonValue>>;
}

/** An edge from or to a node, seen from that node: the node at its other end, and the edge's weight. */
export interface NodeLink {
  readonly id: string;
  readonly weight: number;
}

export interface RetrievalGraph {
  /** The `depth` nodes a reader of `sessionId` may see (see nodeVisibleTo) that best match `text` by BM25, best first. */
  nearest(text: string, depth: number, sessionId: string | null | undefined): readonly KeywordMatch[];
  /** The `depth` nodes a reader of `sessionId` may see nearest by vector to the unit vector `direction`, with their cosine; none while nodes have no vectors. */
  similar(direction: Float32Array, depth: number, sessionId: string | null | undefined): readonly { readonly id: string; readonly similarity: number }[];
  /** The cosine of node `id`'s vector to the unit vector `direction`; undefined when it has none (yet). */
  similarity(direction: Float32Array, id: string): number | undefined;
  /** A node, or undefined when there is none of that id or it is hidden (an archived event). */
  node(id: string): LinkedNode | undefined;
  /** The node's edges of every type, both ways. */
  links(id: string): readonly NodeLink[];
}

/** Whether a node shows to a reader of `sessionId`, as a fact does (see visibleTo). */
export function nodeVisibleTo(node: { readonly sessionId: string | null }, sessionId: string | null | undefined): boolean {
  return sessionId === undefined || node.sessionId === null || node.sessionId === sessionId;
}

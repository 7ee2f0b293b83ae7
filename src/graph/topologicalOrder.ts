import type { EventNode } from './nodeSchema.js';
import type { ReadonlyGraph } from './readonlyGraph.js';
import { nodeOrThrow, visible } from './traversals.js';

export interface TopologicalOrderOptions {
  /** The events to order (notes among them are left out); every event of the graph when absent. */
  readonly ids?: Iterable<string>;
  /** Without `ids`, archived events are left out unless this is true. */
  readonly includeArchived?: boolean;
}

/** Which of two events free to run goes first: higher priority, then older, then by id, so the order is deterministic. */
function runsBefore(a: EventNode, b: EventNode): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.id < b.id;
}

/** Puts `event` into `ready`, kept so that the one to run next is last (pop takes it). */
function enqueue(ready: EventNode[], event: EventNode): void {
  let low = 0;
  let high = ready.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (runsBefore(ready[middle] as EventNode, event)) high = middle;
    else low = middle + 1;
  }
  ready.splice(low, 0, event);
}

/**
 * The events of a subgraph in an order that can run them (seed 002 §3.1, "topological sort, then
 * run in turn"): each after every event of the subgraph it depends on. Dependencies on events
 * outside the subgraph are ignored. Among events free to run, higher priority first. Kahn's
 * algorithm: O(nodes + edges) plus the ordering of the ready ones. The `depends_on` edges are
 * acyclic (the graph refuses a cycle), so every event of the subgraph is in the result.
 */
export function topologicalOrder(graph: ReadonlyGraph, options: TopologicalOrderOptions = {}): EventNode[] {
  const events = new Map<string, EventNode>();
  if (options.ids === undefined) {
    for (const node of graph.nodes()) if (node.kind === 'event' && visible(node, options)) events.set(node.id, node);
  } else {
    for (const id of options.ids) {
      const node = nodeOrThrow(graph, id);
      if (node.kind === 'event') events.set(id, node);
    }
  }
  const waitingOn = new Map<string, number>();
  const ready: EventNode[] = [];
  for (const event of events.values()) {
    const count = graph.outEdges(event.id, 'depends_on').filter((edge) => events.has(edge.to)).length;
    waitingOn.set(event.id, count);
    if (count === 0) enqueue(ready, event);
  }
  const order: EventNode[] = [];
  for (let event = ready.pop(); event !== undefined; event = ready.pop()) {
    order.push(event);
    for (const edge of graph.inEdges(event.id, 'depends_on')) {
      const dependent = events.get(edge.from);
      if (dependent === undefined) continue;
      const left = (waitingOn.get(dependent.id) ?? 0) - 1;
      waitingOn.set(dependent.id, left);
      if (left === 0) enqueue(ready, dependent);
    }
  }
  return order;
}

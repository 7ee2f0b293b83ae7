import type { ReadonlyGraph } from './readonlyGraph.js';

/**
 * The cycle a new `depends_on` edge from → to would close, as node ids in order
 * (`[from, to, …, from]`), or undefined when it closes none. The graph is acyclic before the
 * edge, so a cycle exists exactly when `from` is reachable from `to`: the search starts at `to`
 * only and visits each node once (breadth first, so the path reported is a shortest one).
 */
export function dependencyCycle(graph: ReadonlyGraph, from: string, to: string): string[] | undefined {
  const cameFrom = new Map<string, string | null>([[to, null]]);
  const queue = [to];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head] as string;
    if (id === from) return [from, ...pathTo(cameFrom, from)];
    for (const edge of graph.outEdges(id, 'depends_on')) {
      if (cameFrom.has(edge.to)) continue;
      cameFrom.set(edge.to, id);
      queue.push(edge.to);
    }
  }
  return undefined;
}

/** The path the search took from its start to `end`, start first. */
function pathTo(cameFrom: ReadonlyMap<string, string | null>, end: string): string[] {
  const path: string[] = [];
  for (let id: string | null | undefined = end; id !== null && id !== undefined; id = cameFrom.get(id)) path.push(id);
  return path.reverse();
}

/** The parent of `child` by `part_of`, if it has one (the forest rule allows at most one). */
export function parentOf(graph: ReadonlyGraph, child: string): string | undefined {
  return graph.outEdges(child, 'part_of')[0]?.to;
}

/**
 * The cycle a new `part_of` edge child → parent would close (`[child, parent, …, child]`), or
 * undefined. Every node has at most one parent, so this walks up from `parent` to its root:
 * the depth of the tree, never more than the nodes in the graph.
 */
export function containmentCycle(graph: ReadonlyGraph, child: string, parent: string): string[] | undefined {
  const path = [child];
  for (let id: string | undefined = parent; id !== undefined && path.length <= graph.nodeCount; id = parentOf(graph, id)) {
    path.push(id);
    if (id === child) return path;
  }
  return undefined;
}

import type { EdgeType } from './edgeSchema.js';

/** What the checks read of a graph: the ends of a node's edges of one type, read in place. */
interface Successors {
  readonly nodeCount: number;
  targets(id: string, type: EdgeType): Iterable<string>;
}

/**
 * The cycle a new `depends_on` edge from → to would close, as node ids in order
 * (`[from, to, …, from]`), or undefined when it closes none. The graph is acyclic before the
 * edge, so a cycle exists exactly when `from` is reachable from `to`: the search starts at `to`
 * only and visits each node once (breadth first, so the path reported is a shortest one).
 */
export function dependencyCycle(graph: Successors, from: string, to: string): string[] | undefined {
  const cameFrom = new Map<string, string | null>([[to, null]]);
  const queue = [to];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head] as string;
    if (id === from) return [from, ...pathTo(cameFrom, from)];
    for (const next of graph.targets(id, 'depends_on')) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, id);
      queue.push(next);
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
export function parentOf(graph: Successors, child: string): string | undefined {
  for (const parent of graph.targets(child, 'part_of')) return parent;
  return undefined;
}

/**
 * The cycle a new `part_of` edge child → parent would close (`[child, parent, …, child]`), or
 * undefined. Every node has at most one parent, so this walks up from `parent` to its root:
 * the depth of the tree, never more than the nodes in the graph.
 */
export function containmentCycle(graph: Successors, child: string, parent: string): string[] | undefined {
  const path = [child];
  for (let id: string | undefined = parent; id !== undefined && path.length <= graph.nodeCount; id = parentOf(graph, id)) {
    path.push(id);
    if (id === child) return path;
  }
  return undefined;
}

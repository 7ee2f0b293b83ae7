import { expect } from 'vitest';
import { type EdgeType, type ReadonlyGraph, edgeAllowed, topologicalOrder } from '../../src/graph/index.js';

/** Whether `to` is reachable from `from` by edges of `type`, searched here independently of the graph's own checks. */
export function reachable(graph: ReadonlyGraph, from: string, to: string, type: EdgeType): boolean {
  const seen = new Set<string>();
  const stack = [from];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const edge of graph.outEdges(id, type)) stack.push(edge.to);
  }
  return false;
}

/**
 * Every law of seed 002 on `graph`: each edge joins two nodes it holds, is allowed by the matrix
 * and no self-loop; `depends_on` is acyclic; `part_of` gives at most one parent and no cycle;
 * a topological order of all events puts every dependency before its dependent.
 */
export function expectGraphLaws(graph: ReadonlyGraph): void {
  let edges = 0;
  for (const edge of graph.edges()) {
    edges += 1;
    const from = graph.node(edge.from);
    const to = graph.node(edge.to);
    expect(from, `edge ${edge.from} → ${edge.to} has its source`).toBeDefined();
    expect(to, `edge ${edge.from} → ${edge.to} has its target`).toBeDefined();
    if (from === undefined || to === undefined) return;
    expect(edgeAllowed(from.kind, to.kind, edge.type), `${from.kind} → ${to.kind} by ${edge.type}`).toBe(true);
    expect(edge.from).not.toBe(edge.to);
    expect(graph.inEdges(edge.to, edge.type)).toContain(edge);
    if (edge.type === 'depends_on' || edge.type === 'part_of')
      expect(reachable(graph, edge.to, edge.from, edge.type), `cycle through ${edge.type} ${edge.from} → ${edge.to}`).toBe(false);
  }
  expect(graph.edgeCount).toBe(edges);
  for (const node of graph.nodes()) expect(graph.outEdges(node.id, 'part_of').length).toBeLessThanOrEqual(1);
  const order = topologicalOrder(graph, { includeArchived: true });
  const position = new Map(order.map((event, index) => [event.id, index]));
  expect(order.length).toBe([...graph.nodes()].filter((node) => node.kind === 'event').length);
  for (const edge of graph.edges()) {
    if (edge.type === 'depends_on') expect(position.get(edge.to) as number, `${edge.to} before ${edge.from}`).toBeLessThan(position.get(edge.from) as number);
  }
}

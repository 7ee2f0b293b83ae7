import { GraphRuleError } from './graphRuleError.js';
import { type EventNode, type GraphNode, type NoteNode, finishedStatuses } from './nodeSchema.js';
import type { ReadonlyGraph } from './readonlyGraph.js';

// The traversals an agent makes when it runs a task (seed 002 §4.1) or reads a note (§4.2).
// Directions, from the matrix: A depends_on B means B must be finished before A; A part_of B
// means A is a subtask of B; an event references the notes it takes as context.

/** Archived events are hidden from every view unless asked for (seed 002 §5.3). */
export interface ArchivedOption {
  readonly includeArchived?: boolean;
}

/** What a view shows: archived events only when asked for; with `sessionId`, only that session's nodes and those of every session. */
export interface ViewOptions extends ArchivedOption {
  readonly sessionId?: string | undefined;
}

/** The node `id`, or a refusal naming it. */
export function nodeOrThrow(graph: ReadonlyGraph, id: string): GraphNode {
  const node = graph.node(id);
  if (node === undefined) throw new GraphRuleError('unknown_node', `no node with id ${id}`, { nodeId: id });
  return node;
}

/** Whether `node` shows in a view: an archived event only when asked for, a node of another session never. */
export function visible(node: GraphNode, options: ViewOptions = {}): boolean {
  if (options.sessionId !== undefined && node.sessionId !== null && node.sessionId !== options.sessionId) return false;
  return options.includeArchived === true || node.kind !== 'event' || node.status !== 'archived';
}

const byId = (a: GraphNode, b: GraphNode): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * What keeps event `id` from starting: every event it depends on, directly or through others,
 * that is not finished (`done` or `archived`), nearest first. The walk goes through finished
 * events too, so an unfinished dependency of a finished one still shows.
 */
export function blockersOf(graph: ReadonlyGraph, id: string): EventNode[] {
  nodeOrThrow(graph, id);
  const seen = new Set([id]);
  const blockers: EventNode[] = [];
  let level = [id];
  while (level.length > 0) {
    const next: GraphNode[] = [];
    for (const from of level) {
      for (const edge of graph.outEdges(from, 'depends_on')) {
        const node = graph.node(edge.to);
        if (node === undefined || seen.has(node.id)) continue;
        seen.add(node.id);
        next.push(node);
      }
    }
    next.sort(byId);
    for (const node of next) if (node.kind === 'event' && !finishedStatuses.has(node.status)) blockers.push(node);
    level = next.map((node) => node.id);
  }
  return blockers;
}

/** Whether event `id` may start: nothing it depends on is unfinished. */
export function isBlocked(graph: ReadonlyGraph, id: string): boolean {
  return blockersOf(graph, id).length > 0;
}

/** The direct subtasks of event `id` (the events `part_of` it), by id; archived ones hidden unless asked for. */
export function subtasksOf(graph: ReadonlyGraph, id: string, options: ArchivedOption = {}): EventNode[] {
  nodeOrThrow(graph, id);
  return graph
    .inEdges(id, 'part_of')
    .map((edge) => graph.node(edge.from))
    .filter((node): node is EventNode => node?.kind === 'event' && visible(node, options))
    .sort(byId);
}

/** The parent event of `id` by `part_of`, if it has one. */
export function parentTaskOf(graph: ReadonlyGraph, id: string): EventNode | undefined {
  nodeOrThrow(graph, id);
  const parent = graph.node(graph.outEdges(id, 'part_of')[0]?.to ?? '');
  return parent?.kind === 'event' ? parent : undefined;
}

/** The notes event `id` references: its context (seed 002 §4.1), by id. */
export function contextNotesOf(graph: ReadonlyGraph, id: string): NoteNode[] {
  nodeOrThrow(graph, id);
  return graph
    .outEdges(id, 'references')
    .map((edge) => graph.node(edge.to))
    .filter((node): node is NoteNode => node?.kind === 'note')
    .sort(byId);
}

/** The events that reference note `id`, by id; archived ones hidden unless asked for (a note shows its active tasks). */
export function referencingEvents(graph: ReadonlyGraph, id: string, options: ArchivedOption = {}): EventNode[] {
  nodeOrThrow(graph, id);
  return graph
    .inEdges(id, 'references')
    .map((edge) => graph.node(edge.from))
    .filter((node): node is EventNode => node?.kind === 'event' && visible(node, options))
    .sort(byId);
}

/** A page of a graph's nodes, newest first. */
export interface RecentNodes {
  readonly nodes: readonly GraphNode[];
  /** Nodes the view could show in all (archived events counted only when asked for). */
  readonly total: number;
}

/** The `limit` newest nodes of the graph (by creation, then id) that `options` show: what a listing of a graph shows. */
export function recentNodes(graph: ReadonlyGraph, options: ViewOptions & { readonly limit: number }): RecentNodes {
  const shown = [...graph.nodes()].filter((node) => visible(node, options));
  shown.sort((a, b) => b.createdAt - a.createdAt || byId(b, a));
  return { nodes: shown.slice(0, options.limit), total: shown.length };
}

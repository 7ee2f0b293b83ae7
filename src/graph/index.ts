/**
 * Graph memory (seed 002): events (tasks with a status) and notes as nodes of one directed graph,
 * joined by four edge types: `depends_on` (event → event, acyclic), `part_of` (event → event, a
 * forest), `references` and `produces` (between events and notes; cycles allowed). Which type may
 * join which kinds is the matrix in `edgeRules.ts`. A graph is held in memory whole, both edge
 * directions indexed, and kept in LMDB (sub-dbs `graph-nodes`, `graph-edges`, keyed by owner) or
 * in memory only. Traversals read a `ReadonlyGraph`: blockers, subtasks, context notes, the events
 * referencing a note, a topological order, a neighbourhood and its ranking by link weight.
 */
export { openGraphMemory, type GraphMemory, type GraphMemoryOptions, type Link, type LinkOutcome } from './graphMemory.js';
export type { ReadonlyGraph, GraphChange } from './readonlyGraph.js';
export { GraphRuleError, type GraphRule } from './graphRuleError.js';
export { readStoredGraph } from './loadGraph.js';
export { eraseStoredGraphs } from './graphRecords.js';
export { GraphLimitsSchema, type GraphLimits, type GraphLimitOptions } from './graphLimits.js';
export {
  GraphNodeSchema,
  NodeIdSchema,
  EventStatusSchema,
  NodeKindSchema,
  type GraphNode,
  type EventNode,
  type NoteNode,
  type EventStatus,
  type NodeKind,
} from './nodeSchema.js';
export type { NewEvent, NewNote, NodePatch } from './nodeInput.js';
export { GraphEdgeSchema, EdgeTypeSchema, type GraphEdge, type EdgeKey, type EdgeType } from './edgeSchema.js';
export { allowedEdgeTypes, edgeTopology, edgeAllowed } from './edgeRules.js';
export {
  blockersOf,
  isBlocked,
  subtasksOf,
  parentTaskOf,
  contextNotesOf,
  referencingEvents,
  recentNodes,
  type ArchivedOption,
  type ViewOptions,
  type RecentNodes,
} from './traversals.js';
export { topologicalOrder, type TopologicalOrderOptions } from './topologicalOrder.js';
export { neighbourhood, NeighbourhoodQuerySchema, type NeighbourhoodQuery, type Neighbourhood } from './neighbourhood.js';
export { rankNeighbourhood, RankQuerySchema, type RankQuery, type RankedNode } from './linkRank.js';

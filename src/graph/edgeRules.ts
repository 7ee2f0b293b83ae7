import type { EdgeType } from './edgeSchema.js';
import type { NodeKind } from './nodeSchema.js';

/**
 * Seed 002's validity matrix (§2.3, §5.2), the one place it is written: for an edge from a node
 * of one kind to a node of another, the types it may have. Anything not listed is refused.
 *
 * | from  | to    | types                   |
 * | event | event | depends_on, part_of     |
 * | event | note  | references, produces    |
 * | note  | event | references, produces    |
 * | note  | note  | references              |
 */
export const allowedEdgeTypes: Readonly<Record<NodeKind, Readonly<Record<NodeKind, readonly EdgeType[]>>>> = {
  event: { event: ['depends_on', 'part_of'], note: ['references', 'produces'] },
  note: { event: ['references', 'produces'], note: ['references'] },
};

/**
 * The shape the edges of each type must keep (seed 002 §2.3, §3):
 * - `acyclic`: `depends_on` is a DAG (A depends on B: B must be finished before A can start).
 * - `forest`: `part_of` (A is a subtask of B) gives each event at most one parent, and no cycle.
 * - `free`: `references` and `produces` may form cycles (in notes a cycle is density of knowledge).
 * No type allows a self-loop: a node depending on, containing, citing or producing itself says nothing.
 */
export const edgeTopology: Readonly<Record<EdgeType, 'acyclic' | 'forest' | 'free'>> = {
  depends_on: 'acyclic',
  part_of: 'forest',
  references: 'free',
  produces: 'free',
};

/** Whether the matrix lets an edge of `type` go from a `from` node to a `to` node. */
export function edgeAllowed(from: NodeKind, to: NodeKind, type: EdgeType): boolean {
  return allowedEdgeTypes[from][to].includes(type);
}

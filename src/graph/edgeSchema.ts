import { z } from 'zod';
import { NodeIdSchema } from './nodeSchema.js';

/** The four edge types of seed 002: the structure records only that a relation exists and its direction; what it means is in the nodes' content. */
export const EdgeTypeSchema = z.enum(['depends_on', 'part_of', 'references', 'produces']);
export type EdgeType = z.infer<typeof EdgeTypeSchema>;

export const edgeTypes: readonly EdgeType[] = EdgeTypeSchema.options;

/** How strongly a link counts when a neighbourhood is ranked; 1 unless given. */
export const EdgeWeightSchema = z.number().positive().max(1_000_000);

/** One directed edge; (from, to, type) names it, so two edges of one type never join the same pair in the same direction. */
export const GraphEdgeSchema = z
  .object({
    from: NodeIdSchema,
    to: NodeIdSchema,
    type: EdgeTypeSchema,
    weight: EdgeWeightSchema,
    createdAt: z.number().int().nonnegative(),
  })
  .strict();
export type GraphEdge = z.infer<typeof GraphEdgeSchema>;

/** What names an edge. */
export type EdgeKey = Pick<GraphEdge, 'from' | 'to' | 'type'>;

import { z } from 'zod';
import type { NodeDirectory } from '../../bus/index.js';

/** How an owner waits on its nodes; `whileUnreachable` absent means `fail`, or `wait` with durable mailboxes. */
export const NodePlacementLimitsSchema = z
  .object({
    /** How long a node has to confirm a placement or a stop. */
    nodeRequestTimeoutMs: z.number().int().positive().max(2_147_483_647).default(10_000),
    /**
     * What becomes of work given to an agent whose node is unreachable: `fail` answers it at once,
     * `wait` leaves it to its callers' timeouts (with durable mailboxes, where the work waits for
     * the agent's next node, only `wait`).
     */
    whileUnreachable: z.enum(['fail', 'wait']).optional(),
  })
  .strict();

/** Where an owner places its agents: on the nodes of its society's `directory` that announced their role. */
export interface NodePlacement extends z.input<typeof NodePlacementLimitsSchema> {
  readonly directory?: NodeDirectory;
}

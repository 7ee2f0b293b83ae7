import { z } from 'zod';

/** A node's own bounds, beside every runtime limit it takes as `createRuntime` does. */
export const NodeHostLimitsSchema = z
  .object({
    /** How long its agents wait for the owner to answer a spawn, a termination or a new role. */
    orgRequestTimeoutMs: z.number().int().positive().max(2_147_483_647).default(30_000),
    /** Served tool calls running at once; one more is refused with `mailbox_full`. */
    maxConcurrentToolCalls: z.number().int().positive().default(64),
  })
  .strict();
export type NodeHostLimits = z.input<typeof NodeHostLimitsSchema>;

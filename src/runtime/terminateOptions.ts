import { z } from 'zod';
import { AgentIdSchema, type TerminationMode, TerminationModeSchema, parseOrThrow } from '../task/index.js';

/** The longest a timer can wait (Node's setTimeout fires at once past 2^31 - 1 ms). */
const maxTimerMs = 2_147_483_647;

/** What `rt.terminate` takes besides the agent's id; checked before anything stops. */
export const TerminateOptionsSchema = z
  .object({
    /** Who asks: the agent's parent, or `user` for a top-level agent. */
    by: AgentIdSchema,
    reason: z.string().max(500).optional(),
    /** `drain` (default): finish the queued work first; `abort`: cancel it at once. */
    mode: TerminationModeSchema.default('drain'),
    /** How long a drain may take before what is left is cancelled; the runtime's `drainTimeoutMs` when absent. */
    drainTimeoutMs: z.number().int().nonnegative().max(maxTimerMs).optional(),
  })
  .strict();

export type TerminateOptions = z.input<typeof TerminateOptionsSchema>;

/** What the society is asked to do by `rt.terminate(agentId, options)`; bad input throws a ValidationError naming it. */
export function terminationOf(
  agentId: string,
  options: TerminateOptions,
): { agentId: string; by: string; reason: string; mode: TerminationMode; drainTimeoutMs?: number } {
  const id = parseOrThrow(AgentIdSchema, agentId, 'agentId');
  const { by, reason, mode, drainTimeoutMs } = parseOrThrow(TerminateOptionsSchema, options, 'options');
  return { agentId: id, by, reason: reason ?? `terminated by ${by}`, mode, ...(drainTimeoutMs === undefined ? {} : { drainTimeoutMs }) };
}

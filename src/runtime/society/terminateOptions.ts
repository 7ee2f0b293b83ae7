import { z } from 'zod';
import { TroupeError } from '../../errors.js';
import { AgentIdSchema, type TerminationMode, TerminationModeSchema, parseOrThrow } from '../../task/index.js';

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

/** What the user gives when it terminates an agent from outside the society (`DELETE /api/agents/:id`, `troupe agents terminate`). */
export const UserTerminateOptionsSchema = TerminateOptionsSchema.pick({ reason: true, mode: true }).strict();

export type UserTerminateOptions = z.input<typeof UserTerminateOptionsSchema>;

/**
 * What the society is asked when the user terminates `agentId` from outside: as `user`, so the
 * society's rule decides (a top-level agent, or a top-level agent's child); never `rootId`, the
 * agent the runtime takes its work with (`not_parent`: stop the runtime instead).
 */
export function userTerminationOf(agentId: string, options: UserTerminateOptions, rootId: string): ReturnType<typeof terminationOf> {
  const { reason, mode } = parseOrThrow(UserTerminateOptionsSchema, options, 'options');
  const termination = terminationOf(agentId, { by: 'user', mode, reason: reason ?? 'terminated by the user' });
  if (termination.agentId === rootId) {
    throw new TroupeError('not_parent', `the user may not terminate ${rootId}: the runtime takes its work with it (stop the runtime instead)`, {
      context: { agentId: rootId, by: 'user' },
    });
  }
  return termination;
}

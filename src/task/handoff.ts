import { z } from 'zod';
import { AgentIdSchema } from './schema.js';
import type { ChatMessage } from './chat.js';

/** Where a role may hand a conversation: an agent id, a role name, or `user`. */
const HandoffTargetSchema = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');

/** The most targets one role may list (each is a tool the model sees). */
const maxHandoffTargets = 32;

export const HandoffTargetsSchema = z.array(HandoffTargetSchema).max(maxHandoffTargets, `at most ${maxHandoffTargets} handoff targets`);

/** What a handed-over Task carries in `metadata.handoff`: who had it before, and how often it was handed over. */
export const HandoffMarkSchema = z
  .object({
    /** The agents that held the Task before, oldest first. */
    path: z.array(AgentIdSchema),
    /** How many times the Task was handed over so far. */
    count: z.number().int().nonnegative(),
  })
  .strict();
export type HandoffMark = z.infer<typeof HandoffMarkSchema>;

/** The action of the notice that records a hand-over (from the agent handing over, to its target). */
export const handoffAction = 'agent.handoff';

/** Tool names a model sees: at most 64 of `[a-zA-Z0-9_-]`. */
const prefix = 'transfer_to_';

/**
 * The tool a handoff target becomes: `transfer_to_<name>`, the name lower-cased, every run of
 * characters a tool name may not hold made one `_`, cut to fit 64 characters. Null when nothing
 * of the name is left.
 */
export function handoffToolName(target: string): string | null {
  const cleaned = target
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64 - prefix.length);
  return cleaned === '' ? null : `${prefix}${cleaned}`;
}

/** What a model's handoff decided, as the turn reports it to the agent's machine. */
export interface HandoffDecision {
  /** The agent id the Task goes to, or `user`. */
  readonly to: string;
  /** The target as the role names it (an agent id, a role name or `user`). */
  readonly target: string;
  /** Why, as the model said (may be empty). */
  readonly reason: string;
  /** For `user`: what the agent asks the user. */
  readonly message: string;
  /** The session's conversation as the target gets it (already filtered). */
  readonly conversation: readonly ChatMessage[];
}

import { z } from 'zod';
import { AgentIdSchema, type Task, parseOrThrow } from '../../task/index.js';
import { parsePattern } from '../pattern.js';
import type { Interest } from '../transport.js';

/**
 * A society's name, the second token of each of its subjects. The alphabet is agent ids' own, so
 * no name can carry `.`, `*`, `>` or whitespace into a subject and reach another society's.
 */
export const SocietyNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"');

/**
 * The subject a Task travels on: `troupe.<society>.agent.<to>.action.<action>`, one subject
 * holding both the target and the action, so one publish reaches buses interested in either,
 * and the action's dotted words are subject tokens a prefix pattern can match with `>`.
 *
 * Nothing needs escaping: every part comes from a schema whose alphabet has no subject
 * metacharacters (agent ids `[A-Za-z0-9_-]`, actions dotted `[a-z0-9_]` words, society names as
 * agent ids), and the bus validates every Task before a transport sees it. The fixed tokens
 * `agent` and `action` keep a target from ever being read as an action or the reverse.
 */
export function subjectOf(task: Pick<Task, 'to' | 'action'>, society = 'default'): string {
  return `troupe.${society}.agent.${task.to}.action.${task.action}`;
}

/** The NATS subscription subject for an interest: one agent's Tasks, or an action pattern mapped onto `*` and `>`. */
export function subscriptionSubjectOf(interest: Interest, society: string): string {
  // A target is checked here too: `bus.to()` takes any string, and `x.>` would widen the subscription.
  if ('target' in interest) return `troupe.${society}.agent.${parseOrThrow(AgentIdSchema, interest.target, 'target')}.>`;
  const pattern = parsePattern(interest.pattern);
  switch (pattern.kind) {
    case 'all':
      return `troupe.${society}.agent.*.action.>`;
    case 'prefix':
      return `troupe.${society}.agent.*.action.${pattern.prefix}.>`;
    case 'exact':
      return `troupe.${society}.agent.*.action.${pattern.action}`;
    default: {
      const never: never = pattern;
      return never;
    }
  }
}

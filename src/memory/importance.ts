import { Actions, type Task, taskText } from '../task/index.js';

/**
 * Importance at time `now`: the base importance halved every `halfLifeMs` since `createdAt`,
 * plus `retrievalBoost` for every time the entry was returned to a context or a search, at
 * most 1. So what is old and unused makes room, and what keeps being used stays.
 */
export function effectiveImportance(
  entry: { importance: number; retrievals: number; createdAt: number },
  now: number,
  options: { halfLifeMs: number; retrievalBoost: number },
): number {
  const age = Math.max(0, now - entry.createdAt);
  return Math.min(1, entry.importance * 0.5 ** (age / options.halfLifeMs) + options.retrievalBoost * entry.retrievals);
}

/** Texts this short are acknowledgements ("ok", "thanks, done"), worth little to remember. */
const acknowledgementChars = 16;

/**
 * The heuristic base importance of a Task that carries no `metadata.importance` (the model's
 * `<imp:X/>` tag): a failure 0.8 (what went wrong is worth remembering), a requirement or
 * message from the user 0.7, a lifecycle notice or plan step 0.3, anything else 0.5; and a
 * text shorter than 16 characters, unless it is a failure, at most 0.2. With the default L2
 * threshold (0.6), failures and the user's words are marked for L2, and the rest is not.
 */
export function baseImportance(task: Task): number {
  const given = task.metadata.importance;
  if (given !== undefined) return given;
  const failure = task.status === 'failed' || task.status === 'rejected' || task.error !== null;
  if (failure) return 0.8;
  const byKind = task.from === 'user' ? 0.7 : isNotice(task.action) ? 0.3 : 0.5;
  return taskText(task).trim().length < acknowledgementChars ? Math.min(byKind, 0.2) : byKind;
}

/** Lifecycle notices (`agent.spawned`, `agent.terminated`, …) and plan steps: records of what happened, not work. */
function isNotice(action: string): boolean {
  return action.startsWith('agent.') || action === Actions.planStep;
}

import type { ChatMessage, Task } from '../task/index.js';
import { type Fitted, nothingFitted } from './fitted.js';
import { type Perspective, perspectiveOf, taskMessage } from './taskMessage.js';
import { type TokenCounter, frameOf } from './tokenCounter.js';

/** A tier of full Tasks (L1 or L2) to fit: the Tasks shown, oldest first, and how to say what was left out. */
export interface TaskTier {
  readonly tasks: readonly Task[];
  readonly agentId: string;
  /** The system message before the Tasks kept, saying how many older ones were left out. */
  readonly leftOutNote: (count: number) => string;
}

/** The message of `task` from `agentId`'s side (the session filter has already dropped those with none). */
export function messageOf(task: Task, agentId: string): ChatMessage {
  return taskMessage(task, perspectiveOf(task, agentId) as Perspective);
}

/**
 * The newest Tasks of `tier` that fit in `allotment` tokens, oldest first, after a note of how many
 * older ones were left out. Older Tasks are dropped first, whole; the walk stops at the first that
 * does not fit, so Tasks older than that are never rendered nor tokenised. The newest `pinned`
 * Tasks are kept whatever they cost (the caller has set their tokens aside). The note takes the
 * room of as many of the oldest kept Tasks as it needs, and is left out when even that is not enough.
 */
export function fitTaskTier(tier: TaskTier, allotment: number, pinned: number, counter: TokenCounter): Fitted {
  const { tasks } = tier;
  const total = tasks.length;
  if (total === 0) return nothingFitted(0);

  const kept: ChatMessage[] = [];
  const costs: number[] = [];
  let used = 0;
  for (let i = total - 1; i >= 0; i--) {
    const message = messageOf(tasks[i] as Task, tier.agentId);
    const cost = counter.message(message);
    if (kept.length >= pinned && used + cost > allotment) break;
    used += cost;
    kept.push(message);
    costs.push(cost);
  }

  let note: ChatMessage | null = null;
  if (kept.length < total) {
    for (;;) {
      const content = tier.leftOutNote(total - kept.length);
      const cost = frameOf('system') + counter.text(content);
      if (used + cost <= allotment) {
        note = { role: 'system', content };
        used += cost;
        break;
      }
      if (kept.length <= pinned) break;
      kept.pop();
      used -= costs.pop() ?? 0;
    }
  }
  if (kept.length === 0 && note === null) return nothingFitted(total);
  kept.reverse();
  return { messages: note === null ? kept : [note, ...kept], tokens: used, kept: kept.length, leftOut: total - kept.length };
}

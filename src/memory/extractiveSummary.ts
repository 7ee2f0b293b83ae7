import { ValidationError } from '../errors.js';
import { type Task, taskText } from '../task/index.js';
import { type Candidate, byScore, clip, sentencesOf } from './sentences.js';

/** What a Task says, for a summary: a failure's error message, else its text. */
function spokenText(task: Task): string {
  return task.error?.message ?? taskText(task);
}

/** Who said it: the sender, and the status when it is not a plain request or answer. */
function speaker(task: Task): string {
  return task.status === 'failed' || task.status === 'rejected' || task.status === 'canceled' ? `${task.from} (${task.status})` : task.from;
}

/** The chosen sentences in their original order, one `speaker: sentences` part per Task, parts joined by ` | `. */
function render(tasks: readonly Task[], candidates: readonly Candidate[], chosen: ReadonlySet<number>): string {
  const parts: { group: number; text: string }[] = [];
  candidates.forEach((candidate, i) => {
    if (!chosen.has(i)) return;
    const last = parts[parts.length - 1];
    if (last?.group === candidate.group) last.text += ` ${candidate.text}`;
    else parts.push({ group: candidate.group, text: `${speaker(tasks[candidate.group] as Task)}: ${candidate.text}` });
  });
  return parts.map((part) => part.text).join(' | ');
}

/**
 * A summary of Tasks that needs no model, at most `maxChars` long: the sentences that best carry
 * what the Tasks keep returning to (term frequency over all of them; the first sentence of each
 * Task counts more), in their original order, each Task's under its sender's name:
 * `user: Plan a 3-day trip to Lisbon. | root: Day 1 Alfama, day 2 Belém…`. Deterministic.
 */
export function extractiveSummary(tasks: readonly Task[], maxChars = 200): string {
  if (tasks.length === 0) throw new ValidationError('tasks', 'a summary needs at least one Task');
  const candidates: Candidate[] = tasks.flatMap((task, group) => sentencesOf(spokenText(task)).map((text, index) => ({ text, group, index })));
  const chosen = new Set<number>();
  for (const i of byScore(candidates)) {
    chosen.add(i);
    if (render(tasks, candidates, chosen).length > maxChars) chosen.delete(i);
  }
  if (chosen.size > 0) return render(tasks, candidates, chosen);
  const [best] = byScore(candidates);
  const top = best === undefined ? undefined : candidates[best];
  const first = tasks[top?.group ?? 0] as Task;
  // Nothing fits whole: the best sentence, cut; or, for Tasks with no text at all, what they were.
  const line = top === undefined ? `${first.from} → ${first.to}: ${first.action} [${first.status}]` : `${speaker(first)}: ${top.text}`;
  return clip(line, maxChars);
}

import type { Task } from '../task/index.js';
import type { ContextSources, RetrievalHit, SessionSummary } from './contextSources.js';
import { perspectiveOf } from './taskMessage.js';

/** What the builder left out before fitting, and why: counted in its report. */
export interface FilterCounts {
  /** Tasks, facts and summaries of another session (memory should never hand these over). */
  readonly otherSession: { tasks: number; facts: number; summaries: number };
  /** Tasks with nothing to show: progress updates and streamed fragments, Tasks neither from nor to the agent, the current Task's own copies. */
  readonly skipped: { progress: number; notAddressed: number; current: number };
}

/** The sources that survive the session filter, oldest first; retrieval most similar first. */
export interface SessionItems {
  readonly recent: readonly Task[];
  readonly important: readonly Task[];
  readonly summaries: readonly SessionSummary[];
  readonly retrieval: readonly RetrievalHit[];
  readonly counts: FilterCounts;
}

/**
 * Keeps only what belongs in session `sessionId`: its own Tasks and summaries, its own facts and
 * the agent's shared ones (`scope: 'agent'`). Memory filters by session already; this is the
 * second line of defence, and what it drops is counted, never silent.
 */
export function sessionItems(sources: ContextSources): SessionItems {
  const counts = { otherSession: { tasks: 0, facts: 0, summaries: 0 }, skipped: { progress: 0, notAddressed: 0, current: 0 } };
  const { agentId, sessionId } = sources;
  const currentTaskId = sources.currentTaskId ?? null;

  const shownTasks = (tasks: readonly Task[] | undefined): Task[] => {
    const shown: Task[] = [];
    for (const task of tasks ?? []) {
      if (task.sessionId !== sessionId) counts.otherSession.tasks++;
      else if (task.id === currentTaskId) counts.skipped.current++;
      else {
        const side = perspectiveOf(task, agentId);
        if (side === 'progress') counts.skipped.progress++;
        else if (side === 'not_addressed') counts.skipped.notAddressed++;
        else shown.push(task);
      }
    }
    return shown;
  };

  const summaries: SessionSummary[] = [];
  for (const summary of sources.summaries ?? []) {
    if (summary.sessionId === sessionId) summaries.push(summary);
    else counts.otherSession.summaries++;
  }

  const retrieval: RetrievalHit[] = [];
  for (const hit of sources.retrieval ?? []) {
    const shared = hit.fact.scope === 'agent';
    if (shared || hit.fact.sessionId === sessionId) retrieval.push(hit);
    else counts.otherSession.facts++;
  }
  retrieval.sort((a, b) => b.similarity - a.similarity);

  return { recent: shownTasks(sources.recent), important: shownTasks(sources.important), summaries, retrieval, counts };
}

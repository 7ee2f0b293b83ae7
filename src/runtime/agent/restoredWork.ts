import type { ResumeAt } from '../../../machines/agent.machine.js';
import type { Logger } from '../../logger.js';
import type { AgentRecord } from '../../org/index.js';
import type { Task } from '../../task/index.js';
import type { Journal } from '../journal/journal.js';
import { closeDanglingCalls, resumePoint } from './resume.js';
import type { SessionContexts } from './context/sessionContexts.js';

/** What an agent's actor starts from after a restart: its unfinished work. */
export interface RestoredWork {
  /** Tasks it had accepted and not answered, oldest first: handed back to it once it runs. */
  readonly waiting: readonly Task[];
  /** The turns to pick up: in each session, its oldest waiting Task when that one was interrupted mid-turn. */
  readonly resume: readonly ResumeAt[];
}

/** The oldest of `tasks` in each session, in order: the one whose turn a restart may have interrupted. */
function oldestPerSession(tasks: readonly Task[]): Task[] {
  const oldest = new Map<string, Task>();
  for (const task of tasks) if (!oldest.has(task.sessionId)) oldest.set(task.sessionId, task);
  return [...oldest.values()];
}

/**
 * A new agent starts with nothing waiting. A restored one starts with the Tasks it had not
 * answered, in order; in each session whose oldest waiting Task was mid-turn (its prompt is the
 * last user message of that session's context), that turn resumes from its last stored step, each
 * in its own lane. A conversation an older troupe kept under the bare agent id (one for every
 * session) is not carried into any session: it is cleared with a log line, and a turn it held
 * starts over from its prompt.
 *
 * @internal
 */
export function restoredWork(
  deps: { journal: Journal; logger: Logger },
  contexts: SessionContexts,
  record: AgentRecord,
  origin: 'new' | 'restored',
): RestoredWork {
  if (origin === 'new') return { waiting: [], resume: [] };
  const { journal, logger } = deps;
  if (journal.storedConversation(record.id).length > 0) {
    logger.warn({ agentId: record.id }, 'a conversation kept for every session (before sessions had their own) was cleared; an interrupted turn starts over');
    journal.conversation(record.id).cleared();
  }
  const waiting = journal.storedWaiting(record.id);
  const resume: ResumeAt[] = [];
  for (const first of oldestPerSession(waiting)) {
    const messages = contexts.peek(first.sessionId);
    const point = resumePoint(messages, first);
    if (point !== null) {
      resume.push({ taskId: first.id, step: point.step });
      continue;
    }
    // A turn that will not resume leaves no call unanswered, or the session's next model call would be refused.
    const closing = closeDanglingCalls(messages, 'the agent restarted before this call finished');
    if (closing.length > 0) contexts.context(first.sessionId).append(...closing);
  }
  if (waiting.length > 0) logger.info({ agentId: record.id, tasks: waiting.length, resumed: resume.length }, 'handing back waiting Tasks');
  return { waiting, resume };
}

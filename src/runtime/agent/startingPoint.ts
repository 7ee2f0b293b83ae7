import type { ResumeAt } from '../../../machines/agent.machine.js';
import type { Logger } from '../../logger.js';
import type { AgentRecord, Role } from '../../org/index.js';
import type { Task } from '../../task/index.js';
import type { Journal } from '../journal/journal.js';
import { Conversation } from './conversation.js';
import { closeDanglingCalls, resumePoint } from './resume.js';

/** What an agent's actor starts from: its conversation and, after a restart, its unfinished work. */
export interface StartingPoint {
  readonly conversation: Conversation;
  /** Tasks it had accepted and not answered, oldest first: handed back to it once it runs. */
  readonly waiting: readonly Task[];
  /** The turn to pick up, when the oldest waiting Task was interrupted mid-turn. */
  readonly resume: ResumeAt | null;
}

function systemPrompt(record: AgentRecord, role: Role): string {
  const origin =
    record.parentAgentId === null
      ? 'You answer the user directly.'
      : `Your parent agent is ${record.parentAgentId}; your final answer goes back to whoever sent you the task.`;
  return `${role.prompt}\n\nYou are agent ${record.id} (role ${role.name}) in a troupe society. ${origin}`;
}

/**
 * A new agent starts from its system prompt with nothing waiting. A restored one starts from its
 * stored conversation and the Tasks it had not answered, in order; when the oldest was mid-turn
 * (its prompt is the conversation's last user message), that turn resumes from its last stored step.
 *
 * @internal
 */
export function startingPoint(deps: { journal: Journal; logger: Logger }, record: AgentRecord, role: Role, origin: 'new' | 'restored'): StartingPoint {
  const { journal, logger } = deps;
  const sink = journal.conversation(record.id);
  const stored = origin === 'restored' ? journal.storedConversation(record.id) : [];
  const conversation = stored.length > 0 ? new Conversation(stored, sink) : new Conversation(systemPrompt(record, role), sink);
  const waiting = origin === 'restored' ? journal.storedWaiting(record.id) : [];
  const first = waiting[0];
  const point = first === undefined ? null : resumePoint(conversation.messages, first);
  if (point === null) {
    // A turn that will not resume leaves no call unanswered, or the next model call would be refused.
    const closing = closeDanglingCalls(conversation.messages, 'the agent restarted before this call finished');
    if (closing.length > 0) conversation.append(...closing);
  }
  const resume = first === undefined || point === null ? null : { taskId: first.id, step: point.step };
  if (waiting.length > 0) logger.info({ agentId: record.id, tasks: waiting.length, resumed: resume !== null }, 'handing back waiting Tasks');
  return { conversation, waiting, resume };
}

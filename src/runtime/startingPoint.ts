import type { ChatMessage } from '../llm/index.js';
import type { Logger } from '../logger.js';
import type { Task } from '../task/index.js';
import type { ResumeAt } from '../../machines/agent.machine.js';
import type { AgentRecord } from './agentCell.js';
import { Conversation } from './conversation.js';
import type { Journal } from './journal.js';
import { closeDanglingCalls, resumePoint } from './resume.js';
import type { Role } from './roleBook.js';

/** What an agent's actor starts from: its conversation and, after a restart, its unfinished work. */
export interface StartingPoint {
  readonly conversation: Conversation;
  /** Tasks it had accepted and not answered, oldest first: handed back to it once it runs. */
  readonly waiting: readonly Task[];
  /** The turn to pick up, when the oldest waiting Task was interrupted mid-turn. */
  readonly resume: ResumeAt | null;
}

interface Deps {
  readonly journal: Journal | undefined;
  readonly logger: Logger;
}

function systemPrompt(agentId: string, role: Role, parent: string | null): string {
  const origin = parent === null ? 'You answer the user directly.' : `Your parent agent is ${parent}; your final answer goes back to whoever sent you the task.`;
  return `${role.prompt}\n\nYou are agent ${agentId} (role ${role.name}) in a troupe society. ${origin}`;
}

/** A conversation from `stored` (or the system prompt), kept in the journal from now on. */
function conversation(deps: Deps, record: AgentRecord, role: Role, stored: readonly ChatMessage[]): Conversation {
  const fresh = systemPrompt(record.id, role, record.parentAgentId);
  if (deps.journal === undefined) return new Conversation(fresh);
  const sink = deps.journal.conversation(record.id, (error) => {
    deps.logger.error({ agentId: record.id, error: String(error) }, 'conversation write failed');
  });
  return stored.length > 0 ? new Conversation([...stored], sink) : new Conversation(fresh, sink);
}

/** A new agent: its system prompt, nothing waiting. */
export function freshStart(deps: Deps, record: AgentRecord, role: Role): StartingPoint {
  return { conversation: conversation(deps, record, role, []), waiting: [], resume: null };
}

/**
 * A stored agent after a restart: its conversation and the Tasks it had not answered, in
 * order. When the oldest was mid-turn (its prompt is the conversation's last user message),
 * that turn resumes from its last stored step.
 */
export function restoredStart(deps: Deps, record: AgentRecord, role: Role): StartingPoint {
  const waiting = deps.journal?.storedWaiting(record.id) ?? [];
  const restored = conversation(deps, record, role, deps.journal?.storedConversation(record.id) ?? []);
  const first = waiting[0];
  const point = first === undefined ? null : resumePoint(restored.messages, first);
  if (point === null) {
    // A turn that will not resume leaves no call unanswered, or the next model call would be refused.
    const closing = closeDanglingCalls(restored.messages, 'the agent restarted before this call finished');
    if (closing.length > 0) restored.append(...closing);
  }
  const resume = first === undefined || point === null ? null : { taskId: first.id, step: point.step };
  if (waiting.length > 0) deps.logger.info({ agentId: record.id, tasks: waiting.length, resumed: resume !== null }, 'handing back waiting Tasks');
  return { conversation: restored, waiting, resume };
}

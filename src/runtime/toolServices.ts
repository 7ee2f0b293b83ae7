import { TroupeError } from '../errors.js';
import { Actions, type Task, createTask } from '../task/index.js';
import type { PlanStepInput, RecordedPlan } from '../tools/index.js';
import type { AgentServices } from './agentBehaviour.js';
import type { AgentCell, AgentRecord } from './agentCell.js';
import { lengthWarning } from './conversation.js';

/** What the meta-tools' services need of the society: live agents and their cells. */
export interface LiveAgents {
  readonly deps: AgentServices;
  /** The record of a live agent not being terminated, or throws `unknown_agent` / `agent_terminated`. */
  requireLive(agentId: string): AgentRecord;
  /** The cell of a live agent, or throws as `requireLive`. */
  liveCell(agentId: string): AgentCell;
  cell(agentId: string): AgentCell | undefined;
  parentOf(agentId: string): string | null;
}

// The society's services behind send_message, delegate_task, compress_context and create_plan,
// and the conversation-length warning: each a plain function over the live organisation.

export function sendMessage(society: LiveAgents, input: { from: string; to: string; text: string; parentTask: Task | null; action?: string }): Task {
  if (input.to !== 'user') society.requireLive(input.to);
  const task = createTask({
    from: input.from,
    to: input.to,
    action: input.action ?? Actions.message,
    parameters: { text: input.text },
    parentId: input.parentTask?.id ?? null,
    sessionId: input.parentTask?.sessionId,
  }, society.deps);
  society.deps.bus.publish(task);
  return task;
}

export async function delegateTask(
  society: LiveAgents,
  input: { from: string; to: string; text: string; parentTask: Task; timeoutMs: number; signal: AbortSignal },
): Promise<Task> {
  if (input.to === input.from) throw new TroupeError('invalid_input', 'an agent cannot delegate to itself');
  society.requireLive(input.to);
  const task = createTask({
    from: input.from,
    to: input.to,
    action: Actions.execute,
    parameters: { text: input.text },
    parentId: input.parentTask.id,
    sessionId: input.parentTask.sessionId,
  }, society.deps);
  return society.deps.bus.request(task, { timeoutMs: input.timeoutMs, signal: input.signal });
}

export function compressContext(society: LiveAgents, input: { agentId: string; summary: string; keepRecent: number }): { removed: number; kept: number; messages: number } {
  const conversation = society.liveCell(input.agentId).conversation;
  const { removed, kept } = conversation.compress(input.summary, input.keepRecent);
  society.deps.logger.debug({ agentId: input.agentId, removed, kept }, 'conversation compressed');
  return { removed, kept, messages: conversation.length };
}

export function recordPlan(society: LiveAgents, input: { agentId: string; goal: string; steps: readonly PlanStepInput[]; parentTask: Task }): RecordedPlan {
  society.requireLive(input.agentId);
  const tasks = input.steps.map((step, index) => createTask({
    from: input.agentId,
    to: input.agentId,
    action: Actions.planStep,
    parameters: { goal: input.goal, index, title: step.title, detail: step.detail ?? null },
    parentId: input.parentTask.id,
    sessionId: input.parentTask.sessionId,
  }, society.deps));
  // Made (and validated) before any is published, so a plan is recorded whole or not at all.
  for (const task of tasks) society.deps.bus.publish(task);
  return { planId: input.parentTask.id, steps: tasks.map((task, index) => ({ taskId: task.id, index, title: input.steps[index]?.title ?? '' })) };
}

/**
 * Before each model call: when `agentId`'s conversation holds more than
 * `config.maxConversationMessages`, tells the model so in a system message and publishes an
 * `agent.warning` Task (about `task`) to the agent's parent, or `runtime` for a top-level agent.
 * Returns whether it warned. Called once per model call, it warns on every call while over.
 */
export function warnIfLong(society: LiveAgents, agentId: string, task: Task | null): boolean {
  const conversation = society.cell(agentId)?.conversation;
  const max = society.deps.config.maxConversationMessages;
  if (conversation === undefined || !conversation.needsWarning(max)) return false;
  const messages = conversation.length;
  conversation.append({ role: 'system', content: lengthWarning(messages, max) });
  society.deps.logger.warn({ agentId, messages, max }, 'conversation over its maximum length');
  society.deps.bus.publish(createTask({
    from: agentId,
    to: society.parentOf(agentId) ?? 'runtime',
    action: Actions.warning,
    status: 'completed',
    parameters: { messages, max },
    parentId: task?.id ?? null,
    sessionId: task?.sessionId,
  }, society.deps));
  return true;
}

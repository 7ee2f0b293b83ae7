import { type HandoffDecision, type HandoffMark, HandoffMarkSchema, type JsonValue, type Task, createTask, handoffAction } from '../../task/index.js';
import type { Agent } from './agent.js';

/** How often `task` was handed over before, and by whom (nothing, for a Task never handed over). */
export function handoffMarkOf(task: Task): HandoffMark {
  const parsed = HandoffMarkSchema.safeParse(task.metadata['handoff']);
  return parsed.success ? parsed.data : { path: [], count: 0 };
}

/**
 * Ends a turn its model ended with a handoff: to the user, the Task waits for them
 * (`askUser`, an `input-required` reply) and their next message in the session comes back here;
 * to an agent, `handOver`.
 */
export function handOff(agent: Agent, task: Task, handoff: HandoffDecision, askUser: (text: string) => void): void {
  agent.env.logger.info({ agentId: agent.id, taskId: task.id, to: handoff.to }, 'handed off');
  if (handoff.to !== 'user') {
    handOver(agent, task, handoff);
    return;
  }
  askUser(handoff.message === '' ? 'Please tell me more.' : handoff.message);
  if (task.from === 'user') agent.env.handoffs?.handedOver(task.sessionId, agent.id);
}

/**
 * Hands `task` from `agent` to the agent its model chose: publishes the hand-over notice (an
 * `agent.handoff` Task in the session, from the agent to its target), then the Task itself,
 * addressed to the target with the conversation it is to see, so the target's answer goes where
 * the agent's would have (the user, for the user's Task). The agent no longer owes an answer; the
 * session's user talks to the target from now on.
 */
function handOver(agent: Agent, task: Task, handoff: HandoffDecision): void {
  const { env } = agent;
  const before = handoffMarkOf(task);
  const mark: HandoffMark = { path: [...before.path, agent.id], count: before.count + 1 };
  const { sessionId } = task;
  env.bus.publish(
    createTask(
      {
        from: agent.id,
        to: handoff.to,
        action: handoffAction,
        status: 'completed',
        parentId: task.id,
        sessionId,
        parameters: { taskId: task.id, target: handoff.target, reason: handoff.reason, count: mark.count, messages: handoff.conversation.length },
      },
      env,
    ),
  );
  env.bus.publish(
    createTask(
      {
        id: task.id,
        from: task.from,
        to: handoff.to,
        action: task.action,
        parentId: task.parentId,
        sessionId,
        parameters: { ...task.parameters, conversation: handoff.conversation as unknown as JsonValue },
        metadata: { ...task.metadata, handoff: mark },
      },
      env,
    ),
  );
  env.journal.answered(agent.id, task.id);
  if (task.from === 'user') env.handoffs?.handedOver(sessionId, handoff.to);
}

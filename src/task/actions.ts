import { isReply } from './approval.js';
import type { Task } from './schema.js';

/**
 * The action names troupe itself publishes. Users may publish their own dotted names;
 * these are the ones the runtime, memory and the CLI understand.
 */
export const Actions = {
  /** Work for the receiver: a user requirement, a delegated sub-task. */
  execute: 'execute',
  /** A peer message; the receiver takes a turn on it. */
  message: 'node.message',
  /** A streamed fragment of an agent's model output. */
  thinking: 'node.thinking',
  /** A tool call an agent is making (observation only). */
  toolCall: 'node.tool_call',
  /** What a tool call gave besides its text: its metadata and its artifacts by reference (observation only; made only when it has either). */
  toolResult: 'node.tool_result',
  /** Lifecycle notices, addressed to the agent's parent. */
  spawned: 'agent.spawned',
  terminated: 'agent.terminated',
  /** An agent's turn threw; reported to its parent, the agent keeps running. */
  error: 'agent.error',
  /** A warning to an agent about itself (e.g. its conversation is long). */
  warning: 'agent.warning',
  /** One step of a plan an agent made (`create_plan`), addressed to itself; a record, not work: it starts no turn. */
  planStep: 'plan.step',
  /**
   * Where a delegation given by role or in words went and why (`parameters.decision`: the
   * candidates, their scores, the choice or the refusal); a record addressed to the delegating
   * agent itself, not work.
   */
  routed: 'routing.decided',
  /**
   * Work given is taken back: a notice from the giver of the Task `parentId` to the agent it gave
   * it to (`parameters.reason`); that agent stops its turn on it, or drops it from its mailbox, and
   * answers it `canceled`. A record, not work.
   */
  cancel: 'task.cancel',
} as const;

/** Actions that start a turn in the receiving agent. */
const turnActions: ReadonlySet<string> = new Set([Actions.execute, Actions.message]);

/** Whether a Task asks its receiver for work (a turn): a new `execute` or message, not a status update or notice. */
export function asksForWork(task: Pick<Task, 'status' | 'action'>): boolean {
  return task.status === 'submitted' && turnActions.has(task.action);
}

/** Whether a Task is a receiver's reply to work it was asked for (an `execute` or message answered, failed or waiting for input). */
export function answersWork(task: Pick<Task, 'status' | 'action' | 'metadata'>): boolean {
  return isReply(task) && turnActions.has(task.action);
}

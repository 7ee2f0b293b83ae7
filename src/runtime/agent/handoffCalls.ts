import { TroupeError, describeError } from '../../errors.js';
import type { HandoffDecision, Task, ToolCall } from '../../task/index.js';
import { type ToolResult, errorResult, jsonResult } from '../../tools/index.js';
import type { Agent } from './agent.js';
import type { TurnContext } from './context/sessionContexts.js';

/** A handoff a reply's call asked for and the society accepted; its conversation is taken once the reply's tools are done. */
export type AcceptedHandoff = Omit<HandoffDecision, 'conversation'>;

/** The longest reason or message a handoff call keeps. */
const maxTextChars = 10_000;

function readArguments(raw: string): { reason: string; message: string } {
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    parsed = {};
  }
  const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const text = (key: string): string => (typeof record[key] === 'string' ? record[key].slice(0, maxTextChars) : '');
  return { reason: text('reason'), message: text('message') };
}

/** Whether `call` is one of the agent's `transfer_to_<name>` tools. */
export function isHandoffCall(agent: Agent, call: ToolCall): boolean {
  return agent.settings.handoffs.some((tool) => tool.definition.name === call.name);
}

/**
 * Runs a reply's handoff calls in order, after its other tools: the first the society accepts is
 * the turn's handoff; each call gets a result the model can read (one handoff per reply, so any
 * later one is refused). A refused handoff leaves the turn going: the model reads why.
 */
export async function runHandoffCalls(
  agent: Agent,
  task: Task,
  calls: readonly ToolCall[],
  feed: (call: ToolCall, result: ToolResult) => void,
): Promise<AcceptedHandoff | null> {
  let taken: AcceptedHandoff | null = null;
  for (const call of calls) {
    const tool = agent.settings.handoffs.find((handoff) => handoff.definition.name === call.name);
    if (tool === undefined) continue;
    if (taken !== null) {
      feed(call, errorResult(`not handed over: one handoff per reply, and this reply's went to ${taken.target}`, 'invalid_input'));
      continue;
    }
    const { reason, message } = readArguments(call.arguments);
    if (tool.target === 'user') {
      taken = { to: 'user', target: 'user', reason, message };
      feed(call, jsonResult({ handedOffTo: 'user' }));
      continue;
    }
    const desk = agent.env.handoffs;
    if (desk === undefined) {
      feed(call, errorResult('not handed over: handoffs are not available to an agent hosted on a node', 'invalid_input'));
      continue;
    }
    try {
      const to = await desk.resolve(agent.id, tool.target, task, { taskId: task.id, toolCallId: call.id });
      taken = { to, target: tool.target, reason, message };
      feed(call, jsonResult({ handedOffTo: to }));
    } catch (error) {
      feed(call, errorResult(`not handed over to ${tool.target}: ${describeError(error)}`, error instanceof TroupeError ? error.code : 'tool_error'));
    }
  }
  return taken;
}

/** The handoff as the machine gets it: with the session's conversation the target is to see (none for `user`). */
export function handoffDecision(agent: Agent, context: TurnContext, task: Task, accepted: AcceptedHandoff): HandoffDecision {
  const desk = agent.env.handoffs;
  if (accepted.to === 'user' || desk === undefined) return { ...accepted, conversation: [] };
  const messages = context.messages.filter((message) => message.role !== 'system');
  return { ...accepted, conversation: desk.conversation(messages, { from: agent.id, to: accepted.to, task }) };
}

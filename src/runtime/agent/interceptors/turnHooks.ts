import { TroupeError } from '../../../errors.js';
import { type AssistantMessage, type ChatMessage, type Task, type ToolCall, taskAsPrompt } from '../../../task/index.js';
import { type ToolResult, errorResult } from '../../../tools/index.js';
import type { Agent } from '../agent.js';
import type { HookName } from './interceptor.js';

// Where a turn meets its interceptors: each function returns what the turn goes on with, and
// costs nothing when no interceptor of the agent's role has the hook.

const where: Record<HookName, string> = {
  beforeTurn: 'before the turn started',
  beforeModelCall: 'before a model call',
  afterModelReply: 'after a model reply',
  beforeToolCall: 'before a tool call',
  afterToolResult: 'after a tool result',
  beforeAnswer: 'before the answer left',
};

function stopped(agent: Agent, task: Task, hook: HookName, outcome: { interceptor: string; reason: string; guardrail: boolean }): TroupeError {
  const { interceptor, reason, guardrail } = outcome;
  if (guardrail) {
    return new TroupeError('guardrail_tripped', `guardrail "${interceptor}" tripped ${where[hook]}: ${reason}`, {
      context: { agentId: agent.id, taskId: task.id, guardrail: interceptor, hook },
    });
  }
  return new TroupeError('interceptor_stopped', `stopped by interceptor "${interceptor}" ${where[hook]}: ${reason}`, {
    context: { agentId: agent.id, taskId: task.id, interceptor, hook },
  });
}

const contextOf = (agent: Agent, task: Task) => ({ agentId: agent.id, role: agent.role.name, task });

/** Throws `interceptor_stopped` when an interceptor stops the turn before it starts. */
export async function startTurn(agent: Agent, task: Task, signal: AbortSignal): Promise<void> {
  if (!agent.interceptors.has('beforeTurn')) return;
  const outcome = await agent.interceptors.run('beforeTurn', contextOf(agent, task), { text: taskAsPrompt(task) }, signal);
  if (!outcome.ok) throw stopped(agent, task, 'beforeTurn', outcome);
}

/** The messages the next model call sends, as the interceptors leave them (the conversation itself is unchanged). */
export async function modelRequest(agent: Agent, task: Task, messages: readonly ChatMessage[], signal: AbortSignal): Promise<readonly ChatMessage[]> {
  if (!agent.interceptors.has('beforeModelCall')) return messages;
  const outcome = await agent.interceptors.run('beforeModelCall', contextOf(agent, task), { messages }, signal);
  if (!outcome.ok) throw stopped(agent, task, 'beforeModelCall', outcome);
  return outcome.value.messages;
}

/** The model's reply as the turn records and acts on it. */
export async function modelReply(agent: Agent, task: Task, message: AssistantMessage, signal: AbortSignal): Promise<AssistantMessage> {
  if (!agent.interceptors.has('afterModelReply')) return message;
  const outcome = await agent.interceptors.run('afterModelReply', contextOf(agent, task), message, signal);
  if (!outcome.ok) throw stopped(agent, task, 'afterModelReply', outcome);
  return outcome.value;
}

/** The call to run (its arguments perhaps changed), or the error result the model reads instead when an interceptor stops it. */
export async function toolCallToRun(agent: Agent, task: Task, call: ToolCall, signal: AbortSignal): Promise<{ run: ToolCall } | { refused: ToolResult }> {
  if (!agent.interceptors.has('beforeToolCall')) return { run: call };
  const outcome = await agent.interceptors.run('beforeToolCall', { ...contextOf(agent, task), call }, call, signal);
  if (outcome.ok) return { run: outcome.value };
  if (outcome.guardrail) throw stopped(agent, task, 'beforeToolCall', outcome);
  return { refused: errorResult(`not run: interceptor "${outcome.interceptor}" stopped this call: ${outcome.reason}`, 'interceptor_stopped') };
}

/** The result the model reads and observers see: the interceptors', or their reason when one stops it. */
export async function toolResultToKeep(agent: Agent, task: Task, call: ToolCall, result: ToolResult, signal: AbortSignal): Promise<ToolResult> {
  if (!agent.interceptors.has('afterToolResult')) return result;
  const outcome = await agent.interceptors.run('afterToolResult', { ...contextOf(agent, task), call }, result, signal);
  if (outcome.ok) return outcome.value;
  // A tripped guardrail fails the Task: the model never reads past it.
  if (outcome.guardrail) throw stopped(agent, task, 'afterToolResult', outcome);
  return errorResult(`result withheld: interceptor "${outcome.interceptor}" stopped it: ${outcome.reason}`, 'interceptor_stopped');
}

/** The answer that leaves the turn; throws `interceptor_stopped` when an interceptor keeps it from leaving. */
export async function answerToSend(agent: Agent, task: Task, text: string, signal: AbortSignal): Promise<string> {
  if (!agent.interceptors.has('beforeAnswer')) return text;
  const outcome = await agent.interceptors.run('beforeAnswer', contextOf(agent, task), { text }, signal);
  if (!outcome.ok) throw stopped(agent, task, 'beforeAnswer', outcome);
  return outcome.value.text;
}
